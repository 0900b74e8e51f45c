/**
 * What the export and the gains engine share, below both: the canonical transaction, report
 * tables, exact decimals and wall-clock time in a zone. Depends on nothing else of the project's;
 * the service's exact JSON numbers are parsed here too (`json/`), so the decimals can read them.
 */
export * from './decimal/index.ts';
export { type DayEdge, instantWords } from './instant-words.ts';
export {
  type ExactNumber,
  isExactNumber,
  mayHoldInexactNumbers,
  numberText,
  type ParsedJson,
  parseJson,
  parseJsonExactly,
  parseJsonValue,
  stringifyJson,
} from './json/exact-json.ts';
export { isInexactNumberToken } from './json/number-token.ts';
export { minorUnit, moneyCell, moneyHeader, toMinorUnit } from './money.ts';
export { PROFILE_NAME } from './profile.ts';
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
export { fastUtcInstant, isoInZone, isUtcZone, offsetMinutes, wallClock, wallClockMillis } from './zoned.ts';
