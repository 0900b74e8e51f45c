/**
 * The AWS SDK packages, each loaded at its first use (issue 30).
 *
 * Why lazy: loading `@aws-sdk/client-s3` alone costs about 25 MB of resident memory, and most runs
 * never talk to AWS: a CLI export to a folder, the benchmark's children. Every module that builds a
 * command, an upload or a client therefore loads the package here, when it is about to send, never
 * with a static `import` (types come in with `import type`, which is erased). A static import would
 * load it even from a module imported lazily once bundled: esbuild hoists the static imports of an
 * external package to the top of the bundle (`bench/children.ts`). The Lambda handlers, which always
 * use AWS, may import the SDK statically (`lib/lambda/runtime.ts`); the module is one and the same.
 */

/** `@aws-sdk/client-s3`: the S3 client, its commands and paginators. */
export function loadS3Sdk(): Promise<typeof import('@aws-sdk/client-s3')> {
  return import('@aws-sdk/client-s3');
}

/** `@aws-sdk/lib-storage`: the multipart `Upload`. */
export function loadS3Upload(): Promise<typeof import('@aws-sdk/lib-storage')> {
  return import('@aws-sdk/lib-storage');
}

/** `@aws-sdk/s3-request-presigner`: presigned download links. */
export function loadS3Presigner(): Promise<typeof import('@aws-sdk/s3-request-presigner')> {
  return import('@aws-sdk/s3-request-presigner');
}

/** `@aws-sdk/client-sfn`: Step Functions executions. */
export function loadSfnSdk(): Promise<typeof import('@aws-sdk/client-sfn')> {
  return import('@aws-sdk/client-sfn');
}
