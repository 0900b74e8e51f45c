export {
  ATOMIC_TEMP_PREFIX,
  createFileExclusive,
  isAtomicTempName,
  replaceFileAtomically,
} from './atomic-file.ts';
export { LocalPreconditionFailedError, messageOf, StorageAbortedError, StorageError } from './errors.ts';
export { type Digest, HashingStream, hashedFile } from './hashing.ts';
export { createLocalSink, type LocalSinkOptions } from './local-sink.ts';
export { assertListPrefix, assertObjectName } from './names.ts';
export { currentProcessOwner, type ProcessOwner } from './owner.ts';
export {
  attachmentDisposition,
  DEFAULT_PRESIGN_EXPIRY_SECONDS,
  MAX_PRESIGN_EXPIRY_SECONDS,
  type PresignDownloadOptions,
  presignDownload,
} from './presign.ts';
export {
  isConditionalConflict,
  isLostRace,
  isNotFound,
  isPreconditionFailed,
} from './s3-answers.ts';
export { createS3Client, type S3ClientSettings, s3ClientOf } from './s3-client.ts';
export { type RepairResult, repairDeadSets } from './s3-repair.ts';
export {
  createS3Sink,
  MAX_COPY_SIZE,
  MIN_PART_SIZE,
  type S3SinkOptions,
  STAGING_SEGMENT,
} from './s3-sink.ts';
export { makeObjectWritesAtomic } from './s3rver-atomic.ts';
export { openScratch, removeDeadFolders, SCRATCH_PREFIX, scratchOwner } from './scratch.ts';
export type { Sink, SinkObject, SinkSet, StoredObject } from './sink.ts';
