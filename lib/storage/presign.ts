import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Presigner, loadS3Sdk } from '../aws-sdk.ts';
import { ValidationError } from '../errors.ts';

/** Expiry used when none is given: 15 minutes. */
export const DEFAULT_PRESIGN_EXPIRY_SECONDS = 900;
/** Longest expiry SigV4 allows: 7 days. */
export const MAX_PRESIGN_EXPIRY_SECONDS = 604_800;

/** Input of {@link presignDownload}. */
export interface PresignDownloadOptions {
  client: S3Client;
  bucket: string;
  key: string;
  /** Name the browser saves the file as; any Unicode text without control characters. */
  fileName: string;
  /** Whole seconds, 1 … 604 800; default 900. */
  expiresInSeconds?: number;
  /** When the validity starts; defaults to the current time (inject a clock's value here). */
  signingDate?: Date;
}

/**
 * Signs a GET URL for one object that downloads as an attachment named `fileName`. Nothing is
 * sent to S3; the URL carries the signature, so never log it.
 *
 * @throws ValidationError naming `expiresInSeconds` or `fileName` when out of range or unusable.
 */
export async function presignDownload(options: PresignDownloadOptions): Promise<string> {
  const {
    client,
    bucket,
    key,
    fileName,
    signingDate,
    expiresInSeconds = DEFAULT_PRESIGN_EXPIRY_SECONDS,
  } = options;
  if (
    !Number.isInteger(expiresInSeconds) ||
    expiresInSeconds < 1 ||
    expiresInSeconds > MAX_PRESIGN_EXPIRY_SECONDS
  ) {
    throw new ValidationError(
      'expiresInSeconds',
      `must be a whole number of seconds from 1 to ${MAX_PRESIGN_EXPIRY_SECONDS}, got ${expiresInSeconds}`,
    );
  }
  // The SDK is loaded here, not statically: most runs never presign (lib/aws-sdk.ts).
  const [{ GetObjectCommand }, { getSignedUrl }] = await Promise.all([loadS3Sdk(), loadS3Presigner()]);
  const command = new GetObjectCommand({
    Bucket: bucket,
    Key: key,
    ResponseContentDisposition: attachmentDisposition(fileName),
  });
  return getSignedUrl(client, command, {
    expiresIn: expiresInSeconds,
    ...(signingDate === undefined ? {} : { signingDate }),
  });
}

/**
 * `attachment; filename="…"; filename*=UTF-8''…` (RFC 6266 with RFC 5987 encoding): the quoted
 * name is an ASCII fallback for old clients, the extended one keeps the exact Unicode name.
 *
 * @throws ValidationError naming `fileName` when empty or containing control characters.
 */
export function attachmentDisposition(fileName: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (fileName === '' || /[\u0000-\u001f\u007f]/.test(fileName)) {
    throw new ValidationError('fileName', 'must be non-empty and free of control characters');
  }
  const fallback = fileName.replace(/[^\u0020-\u007e]|["\\]/g, '_');
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encodeRfc5987(fileName)}`;
}

/** Percent-encodes everything outside RFC 5987 `attr-char`. */
function encodeRfc5987(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
