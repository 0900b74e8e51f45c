/**
 * What the project uses of each AWS SDK package, by name: the loaders of `lib/aws-sdk.ts` give
 * these and nothing more, so a call site taking an export not listed here fails tsc, and the
 * Lambda bundles (`./bundled.ts`) carry exactly these.
 */
import type * as Sfn from '@aws-sdk/client-sfn';
import type * as Storage from '@aws-sdk/lib-storage';
import type * as Presigner from '@aws-sdk/s3-request-presigner';
import type * as S3Used from './s3-used.ts';

/** `@aws-sdk/client-s3`: the client, the commands the project sends, one paginator (`./s3-used.ts`). */
export type S3Sdk = typeof S3Used;

/** `@aws-sdk/lib-storage`: the multipart `Upload`. */
export type S3UploadSdk = Pick<typeof Storage, 'Upload'>;

/** `@aws-sdk/s3-request-presigner`: presigned download links. */
export type S3PresignerSdk = Pick<typeof Presigner, 'getSignedUrl'>;

/** `@aws-sdk/client-sfn`: starting an execution. */
export type SfnSdk = Pick<typeof Sfn, 'ExecutionAlreadyExists' | 'StartExecutionCommand'>;
