/**
 * The loaders everywhere but in the Lambda bundles (`lib/aws-sdk.ts`): each package is imported
 * at its first use. The package itself, never a module re-exporting from it: in a bundle that
 * leaves the SDK external (the benchmark's children), esbuild would hoist that module's static
 * import of the package to the top of the bundle, and the SDK would load at start.
 */
import type { S3PresignerSdk, S3Sdk, S3UploadSdk, SfnSdk } from './types.ts';

/** `@aws-sdk/client-s3`, loaded now. */
export function loadS3Sdk(): Promise<S3Sdk> {
  return import('@aws-sdk/client-s3');
}

/** `@aws-sdk/lib-storage`, loaded now. */
export function loadS3Upload(): Promise<S3UploadSdk> {
  return import('@aws-sdk/lib-storage');
}

/** `@aws-sdk/s3-request-presigner`, loaded now. */
export function loadS3Presigner(): Promise<S3PresignerSdk> {
  return import('@aws-sdk/s3-request-presigner');
}

/** `@aws-sdk/client-sfn`, loaded now. */
export function loadSfnSdk(): Promise<SfnSdk> {
  return import('@aws-sdk/client-sfn');
}
