/**
 * The exports of `@aws-sdk/client-s3` the project uses: the one list of them. `./types.ts` types
 * the S3 loader by it (a call site taking another export fails tsc), and the Lambda bundles'
 * loader (`./bundled.ts`) gives this module whole, so esbuild bundles these and drops the rest.
 */
export {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  GetObjectLockConfigurationCommand,
  HeadObjectCommand,
  PutObjectCommand,
  PutObjectRetentionCommand,
  paginateListObjectsV2,
  S3Client,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
