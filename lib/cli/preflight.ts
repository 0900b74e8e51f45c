import { randomBytes } from 'node:crypto';
import { mkdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { ValidationError } from '../errors.ts';
import type { Destination } from './args.ts';

/** Name of the probe file or object the checks write and remove at once. */
const probeName = () => `.pbs-export-probe-${randomBytes(6).toString('hex')}`;

/**
 * Checks, before the first request to the service, that the run's files can be stored where the
 * command line says: a folder that exists or can be created and takes a file; a bucket that the
 * credentials reach and may write and delete in. Each check writes one probe and removes it (and
 * the folders it created), leaving nothing behind. Throws `ValidationError` naming the flag, so
 * a bad destination fails in a second, not after hours of fetching.
 */
export async function checkDestination(destination: Destination, s3?: S3Client): Promise<void> {
  if (destination.kind === 'folder') return checkFolder(destination.dir);
  if (s3 === undefined) throw new Error('checkDestination: an S3 destination needs its client');
  return checkBucket(destination, s3);
}

const systemCode = (error: unknown) => (error as NodeJS.ErrnoException | undefined)?.code;

/** What a failed file-system call says, without Node's prefix: `permission denied (EACCES)`. */
function systemReason(error: unknown): string {
  const code = systemCode(error);
  const reasons: Record<string, string> = {
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'the file system is read-only',
    ENOSPC: 'no space left on the device',
    ENOENT: 'cannot create it there',
    ENOTDIR: 'a part of the path is a file',
  };
  return code !== undefined && reasons[code] !== undefined
    ? `${reasons[code]} (${code})`
    : (error as Error).message;
}

async function checkFolder(dir: string): Promise<void> {
  const root = resolve(dir);
  // The folders the check creates, outermost first: removed again afterwards.
  const created: string[] = [];
  for (let path = root; ; path = dirname(path)) {
    const info = await stat(path).catch((error: unknown) => {
      if (systemCode(error) === 'ENOENT' || systemCode(error) === 'ENOTDIR') return null;
      throw new ValidationError('--out', `cannot use ${root}: ${systemReason(error)}`, { cause: error });
    });
    if (info !== null) {
      if (!info.isDirectory()) {
        throw new ValidationError(
          '--out',
          path === root ? `${root} is a file, not a folder` : `cannot create ${root}: ${path} is a file`,
        );
      }
      break;
    }
    created.unshift(path);
    if (dirname(path) === path) break;
  }
  try {
    // One by one, not `recursive`: Node's recursive mkdir never returns where a file system
    // answers ENOENT to every creation (/proc).
    for (const folder of created) await mkdir(folder);
    const probe = join(root, probeName());
    await writeFile(probe, '');
    await rm(probe, { force: true });
  } catch (error) {
    const verb = created.length > 0 ? 'create or write into' : 'write into';
    throw new ValidationError('--out', `cannot ${verb} ${root}: ${systemReason(error)}`, { cause: error });
  } finally {
    for (const folder of [...created].reverse()) await rmdir(folder).catch(() => {});
  }
}

/** The SDK errors a probe meets, by name (and the HTTP status for unnamed ones), in words. */
function bucketReason(error: unknown, location: string): { flag: string; reason: string } {
  const name = (error as Error | undefined)?.name ?? '';
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const message = (error as Error | undefined)?.message ?? String(error);
  if (name === 'CredentialsProviderError' || (/credential/i.test(message) && status === undefined)) {
    return {
      flag: '--s3',
      reason:
        'no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE) before writing to S3',
    };
  }
  if (name === 'NoSuchBucket') return { flag: '--s3', reason: `the bucket of ${location} does not exist` };
  if (name === 'AccessDenied' || status === 403) {
    return {
      flag: '--s3',
      reason: `the credentials may not write and delete in ${location} (${name || status})`,
    };
  }
  if (status === undefined) {
    return { flag: '--s3-endpoint', reason: `cannot reach the store of ${location}: ${message}` };
  }
  return { flag: '--s3', reason: `cannot write into ${location}: ${name || status}: ${message}` };
}

async function checkBucket(destination: Extract<Destination, { kind: 's3' }>, s3: S3Client): Promise<void> {
  const { bucket, prefix } = destination;
  const location = `s3://${bucket}/${prefix === '' ? '' : `${prefix}/`}`;
  const key = `${prefix === '' ? '' : `${prefix}/`}${probeName()}`;
  const { DeleteObjectCommand, PutObjectCommand } = await loadS3Sdk();
  try {
    // An empty body as bytes: as a string '' the SDK sends no length and prints its "Stream of
    // unknown length" warning to the user's terminal.
    const { VersionId } = await s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: key, Body: new Uint8Array(0) }),
    );
    // In a versioned bucket a plain delete only hides the probe behind a delete marker: its version
    // is deleted instead, which leaves nothing (and needs s3:DeleteObjectVersion, else the marker).
    const deleted = VersionId
      ? await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key, VersionId })).then(
          () => true,
          () => false,
        )
      : false;
    if (!deleted) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
  } catch (error) {
    const { flag, reason } = bucketReason(error, location);
    // An endpoint flag only when one was given; else the URL is what the user can change.
    const named = flag === '--s3-endpoint' && destination.endpoint === undefined ? '--s3' : flag;
    throw new ValidationError(named, reason, { cause: error });
  }
}
