/**
 * Exact decimals, the one place for them: decimal strings as the service sends them (`plain.ts`:
 * parsing, normalising, comparing, running sums) and arithmetic on one private big.js constructor
 * with the single rounded operation `mulDiv` (`big.ts`). Amounts never pass through binary
 * floating point.
 */
export { Big, mulDiv, type Rounding, text, ZERO } from './big.ts';
export * from './plain.ts';
