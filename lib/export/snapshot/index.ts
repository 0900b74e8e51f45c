/**
 * Stage 3, snapshot: the parts of a window merged in order, duplicates dropped, into one gzipped
 * NDJSON snapshot (a header line, then every record): what every report is rendered from.
 */
export {
  type AssembledSnapshot,
  type AssembledWindow,
  type AssembleInput,
  type AssembleResult,
  assembleSnapshot,
  assembleWindow,
  ConflictingCopiesError,
  type ConflictingCopiesRule,
  PartOrderError,
  prependHeader,
  type ShardsInFlight,
  STREAM_BATCH,
  type WindowInput,
} from './assemble.ts';
export {
  decodePartLine,
  encodePartLine,
  type PartLine,
  type PartLineFields,
  type PartLineKey,
  partLineKey,
  transactionId,
  transactionInstant,
} from './part-line.ts';
export {
  createPartStore,
  createPartWriter,
  DEFAULT_PART_BUDGET_BYTES,
  defaultPartBudgetBytes,
  type PartStore,
  partBudgetFor,
  readPartLineBytes,
  WORKBOOK_WORKER_BYTES,
} from './part-store.ts';
export {
  createNdjsonWriter,
  type NdjsonWriter,
  readNdjson,
  readNdjsonLines,
  readSnapshotHeader,
  readSnapshotRecords,
  SNAPSHOT_FORMAT,
  SnapshotError,
  type SnapshotHeader,
  type SnapshotRecord,
} from './snapshot.ts';
export { type ChangesSinceOptions, changesSince, deletedFlag, TimelineItemError } from './timeline.ts';
