/**
 * The loaders in the Lambda bundles (`lib/aws-sdk.ts`; chosen by the `pbs-lambda` condition,
 * `infra/bundling.ts`): the exports the project uses, imported statically (those of `client-s3`
 * through `./s3-used.ts`, which lists them), so esbuild bundles those and drops the rest of each
 * package. A function imports the SDK at start anyway
 * (`lib/lambda/runtime.ts`); an `import()` here would make esbuild keep, and evaluate at the
 * first use, every command of the package.
 */
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import * as s3Used from './s3-used.ts';
import type { S3PresignerSdk, S3Sdk, S3UploadSdk, SfnSdk } from './types.ts';

const s3: S3Sdk = s3Used;

/** `@aws-sdk/client-s3`'s exports the project uses, bundled. */
export function loadS3Sdk(): Promise<S3Sdk> {
  return Promise.resolve(s3);
}

/** `@aws-sdk/lib-storage`'s `Upload`, bundled. */
export function loadS3Upload(): Promise<S3UploadSdk> {
  return Promise.resolve({ Upload });
}

/** `@aws-sdk/s3-request-presigner`'s `getSignedUrl`, bundled. */
export function loadS3Presigner(): Promise<S3PresignerSdk> {
  return Promise.resolve({ getSignedUrl });
}

/** `@aws-sdk/client-sfn`'s exports the project uses, bundled. */
export function loadSfnSdk(): Promise<SfnSdk> {
  return Promise.resolve({ ExecutionAlreadyExists, StartExecutionCommand });
}
