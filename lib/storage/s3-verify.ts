/**
 * What an S3-compatible store kept, checked against what was sent. A store or proxy that
 * truncates or alters a body answers 200 all the same; a manifest written after it would list
 * sizes and SHA-256 its objects do not have. So each stored object is checked before the manifest:
 * its size (HEAD `Content-Length`) always, and its content by the cheapest proof the store gives:
 *
 * - the ETag, when it is a plain MD5 of the content: a single-part object stored unencrypted or
 *   with SSE-S3 (S3's documented rule, and what s3rver does), compared with the MD5 of the bytes
 *   sent;
 * - the ETag of a multipart upload, `<hex>-<parts>`, when it is the one S3 computes (the MD5 of
 *   the parts' MD5s) for the parts that were sent (`SentObject.multipartEtag`): no part can
 *   differ from what was sent without changing it;
 * - otherwise (another multipart ETag, SSE-KMS or SSE-C, an ETag of another form) the object is
 *   read back and its SHA-256 compared with the one of the bytes sent: a store that computes its
 *   multipart ETags otherwise costs a read, never a failure.
 *
 * Checksums the store could compute itself (`x-amz-checksum-*`) are not used: s3rver 3.7.1 stores
 * the SDK's checksum framing as content (DESIGN.md, known traps), and a multipart upload's
 * SHA-256 is a checksum of part checksums, not of the object.
 */
import type { HeadObjectCommandOutput, S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { messageOf, StorageError } from './errors.ts';
import { digestOf } from './hashing.ts';
import type { CopyAnswer } from './s3-copy.ts';

/** What was sent: size, SHA-256 and MD5 (lowercase hex). */
export interface SentObject {
  bytes: number;
  sha256: string;
  md5: string;
  /** The ETag S3 computes for the multipart upload that sent it, when it was one (`HashingStream`). */
  multipartEtag?: string;
}

/** How an object was found equal to what was sent. */
export type VerifiedBy = 'etag' | 'read-back';

/**
 * Checks that `key` holds exactly what was sent: its size, then its ETag or its read-back SHA-256
 * (see the module's note).
 *
 * @throws StorageError naming the object and what differs, or why it could not be checked.
 */
export async function verifyStoredObject(
  client: S3Client,
  bucket: string,
  key: string,
  sent: SentObject,
): Promise<VerifiedBy> {
  const location = `s3://${bucket}/${key}`;
  const head = await headOf(client, bucket, key, location);
  if (head.ContentLength !== sent.bytes) {
    throw new StorageError(
      location,
      `the store kept ${head.ContentLength ?? 'an unknown number of'} bytes, ${sent.bytes} were sent`,
    );
  }
  const md5 = plainMd5(head);
  if (md5 !== undefined) {
    if (md5 !== sent.md5)
      throw new StorageError(
        location,
        'the store kept other content than was sent (its ETag is not the MD5 sent)',
      );
    return 'etag';
  }
  if (sent.multipartEtag !== undefined && multipartEtagOf(head) === sent.multipartEtag) return 'etag';
  let kept: { bytes: number; sha256: string };
  const { GetObjectCommand } = await loadS3Sdk();
  try {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    kept = await digestOf((object.Body ?? []) as AsyncIterable<Uint8Array>);
  } catch (error) {
    throw new StorageError(location, `could not read the object back to check it: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (kept.bytes !== sent.bytes || kept.sha256 !== sent.sha256) {
    throw new StorageError(
      location,
      'the store kept other content than was sent (read back, its sha256 differs)',
    );
  }
  return 'read-back';
}

/**
 * Checks what the store answered about a copy it made of a staged object: when its ETag is a
 * plain MD5 (a CopyObject's is, unencrypted or SSE-S3, by S3's rule), it must be `md5`, the MD5
 * of what was sent. The answer of the copy itself, not a HEAD: the deployed finish function may
 * write the final keys but not read them.
 *
 * @throws StorageError naming the object when the ETag differs.
 */
export function verifyCopyAnswer(
  bucket: string,
  key: string,
  answer: CopyAnswer,
  md5: string | undefined,
): void {
  const copied = plainMd5(answer);
  if (copied !== undefined && md5 !== undefined && copied !== md5) {
    throw new StorageError(
      `s3://${bucket}/${key}`,
      'the copy put in place has other content than was staged (its ETag is not the MD5 sent)',
    );
  }
}

async function headOf(
  client: S3Client,
  bucket: string,
  key: string,
  location: string,
): Promise<HeadObjectCommandOutput> {
  const { HeadObjectCommand } = await loadS3Sdk();
  try {
    return await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    throw new StorageError(location, `could not check what the store kept: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** The object's ETag as a lowercase `<hex>-<parts>` when it has that form, unencrypted or SSE-S3; else undefined. */
function multipartEtagOf(head: CopyAnswer): string | undefined {
  const etag = (head.ETag ?? '').replace(/^(W\/)?"|"$/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}-[1-9][0-9]*$/.test(etag)) return undefined;
  if (head.ServerSideEncryption?.startsWith('aws:kms') || head.SSECustomerAlgorithm !== undefined)
    return undefined;
  return etag;
}

/**
 * The object's ETag as a lowercase MD5 when it is one by S3's rule (32 hex digits, no part count,
 * no SSE-KMS or customer key), else undefined.
 */
function plainMd5(head: CopyAnswer): string | undefined {
  const etag = (head.ETag ?? '').replace(/^(W\/)?"|"$/g, '').toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(etag)) return undefined;
  if (head.ServerSideEncryption?.startsWith('aws:kms') || head.SSECustomerAlgorithm !== undefined)
    return undefined;
  return etag;
}
