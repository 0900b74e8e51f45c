import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';

/** Settings for {@link createS3Client}; everything comes from the caller, nothing from the environment. */
export interface S3ClientSettings {
  region: string;
  /** An S3-compatible endpoint such as `http://127.0.0.1:4568`; omit for AWS itself. */
  endpoint?: string;
  /** Path-style addressing (`host/bucket/key`), needed by most S3-compatible servers. */
  forcePathStyle?: boolean;
  /** Omit to let the SDK resolve credentials (e.g. the Lambda role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

/**
 * Builds an S3 client, loading the SDK first: it is loaded only by the runs that use S3 (about
 * 25 MB of memory; see lib/aws-sdk.ts). With a custom `endpoint`, see {@link s3ClientOf}.
 */
export async function createS3Client(settings: S3ClientSettings): Promise<S3Client> {
  const { S3Client } = await loadS3Sdk();
  return s3ClientOf(S3Client, settings);
}

/**
 * Builds an S3 client with the SDK's `S3Client` class, for code that has the SDK loaded already
 * (the Lambda runtime, tests). With a custom `endpoint`, checksums are sent and validated only
 * when an operation requires them: S3-compatible servers such as s3rver store the SDK's default
 * aws-chunked checksum framing as object content.
 */
export function s3ClientOf(S3: typeof S3Client, settings: S3ClientSettings): S3Client {
  const { region, endpoint, forcePathStyle, credentials } = settings;
  return new S3({
    region,
    ...(endpoint === undefined
      ? {}
      : {
          endpoint,
          requestChecksumCalculation: 'WHEN_REQUIRED' as const,
          responseChecksumValidation: 'WHEN_REQUIRED' as const,
        }),
    ...(forcePathStyle === undefined ? {} : { forcePathStyle }),
    ...(credentials === undefined ? {} : { credentials }),
  });
}
