export { StorageAbortedError, StorageError } from './errors.ts';
export { HashingStream } from './hashing.ts';
export { createLocalSink } from './local-sink.ts';
export { assertListPrefix, assertObjectName } from './names.ts';
export {
  attachmentDisposition,
  DEFAULT_PRESIGN_EXPIRY_SECONDS,
  MAX_PRESIGN_EXPIRY_SECONDS,
  type PresignDownloadOptions,
  presignDownload,
} from './presign.ts';
export { createS3Client, type S3ClientSettings } from './s3-client.ts';
export { createS3Sink, MIN_PART_SIZE, type S3SinkOptions } from './s3-sink.ts';
export type { Sink, SinkObject, StoredObject } from './sink.ts';
