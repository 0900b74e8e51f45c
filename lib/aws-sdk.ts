/**
 * The AWS SDK packages, each loaded at its first use (issue 30).
 *
 * Why lazy: loading `@aws-sdk/client-s3` alone costs about 25 MB of resident memory, and most runs
 * never talk to AWS: a CLI export to a folder, the benchmark's children. Every module that builds a
 * command, an upload or a client therefore loads the package here, when it is about to send, never
 * with a static `import` (types come in with `import type`, which is erased). A static import would
 * load it even from a module imported lazily once bundled: esbuild hoists the static imports of an
 * external package to the top of the bundle (`bench/children.ts`).
 *
 * The Lambda bundles, which carry the SDK and load it at start anyway (`lib/lambda/runtime.ts`),
 * get loaders that import statically instead (`./aws-sdk/bundled.ts`): esbuild keeps every export
 * of a module loaded with `import()`, so there each function would carry and evaluate all of a
 * package's commands. Which module `#aws-sdk-loaders` names is package.json's `imports` field: the
 * `pbs-lambda` condition (`infra/bundling.ts`) → `bundled.ts`, anything else (Node, tsx, vitest,
 * the benchmark's bundles) → `./aws-sdk/lazy.ts`. Both give what `./aws-sdk/types.ts` lists.
 */
export { loadS3Presigner, loadS3Sdk, loadS3Upload, loadSfnSdk } from '#aws-sdk-loaders';
export type { S3PresignerSdk, S3Sdk, S3UploadSdk, SfnSdk } from './aws-sdk/types.ts';
