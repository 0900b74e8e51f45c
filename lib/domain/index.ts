/**
 * What the export and the gains engine share, below both: the canonical transaction, report
 * tables, exact decimals and wall-clock time in a zone. Depends on nothing of the project's but
 * the service's exact JSON numbers.
 */
export * from './decimal/index.ts';
export { minorUnit, moneyCell, moneyHeader, toMinorUnit } from './money.ts';
export {
  type Cell,
  type Column,
  type ColumnKind,
  numberWidth,
  type Row,
  type TableSource,
  type TableSpec,
} from './table.ts';
export { compareText } from './text.ts';
export type { CanonicalMovement, CanonicalTransaction } from './transaction.ts';
export { fastUtcInstant, isoInZone, offsetMinutes, wallClock } from './zoned.ts';
