/**
 * "Download all": one zip of a finished set's files, the manifest inside, built by streaming into
 * S3 (`work/{jobId}/archive/{runId}.zip`) and offered as a presigned link like the single files.
 *
 * Why a stored zip and not a streamed answer: on Lambda, API Gateway's HTTP API answers at most
 * 10 MB, less than a large set. So both the deployed API and `npm run serve` build the zip the
 * same way. Nothing is held in memory but the manifest: each object is read from S3 as a stream,
 * hashed while it passes into the zip, and the zip is uploaded in parts as it is written.
 *
 * Each file is checked against the manifest (size and SHA-256) as it streams; on a mismatch the
 * zip and its upload are aborted, so no zip that differs from the manifest is ever offered.
 *
 * Built once, then reused ({@link setArchive}): the zip records a digest of the set's objects as
 * stored when it was built (each file's name, size and ETag, which a rewrite changes); a later
 * "download all" whose digest is the same answers the stored zip after one HEAD per file, without
 * reading or zipping anything. A set whose objects changed since is built again, and refused if
 * it no longer matches its manifest. The zip is not part of the set: it lives under `work/`, not
 * beside the set's files, and changes neither the manifest nor any SHA-256 in it.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable, Transform, type TransformCallback } from 'node:stream';
import { GetObjectCommand, HeadObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import archiver from 'archiver';
import pLimit from 'p-limit';
import { MANIFEST_NAME } from '../export/index.ts';
import { isNotFound, type JobFile, type JobResult } from '../jobs/index.ts';
import { ArchiveError } from './errors.ts';

/** Where a set's zip is stored: under `work/`, which expires (a zip can always be built again). */
export const archiveKey = (jobId: string, runId: string) => `work/${jobId}/archive/${runId}.zip`;

/** What {@link buildArchive} reads and writes with. */
export interface ArchiveStore {
  s3: S3Client;
  bucket: string;
}

/** The zip as stored: its key and size. */
export interface StoredArchive {
  key: string;
  bytes: number;
}

/** The zip's metadata key of the set digest it was built from ({@link setDigest}). */
const DIGEST_METADATA = 'set-digest';

/** Files already compressed: stored in the zip as they are (deflating them again only costs time). */
const COMPRESSED = /\.(xlsx|gz|zip|pdf)$/i;

/**
 * The set's objects as stored now: a SHA-256 over each file's name, size and ETag (one HEAD per
 * file). Any rewrite of a file with other bytes changes its ETag, so the digest.
 *
 * @throws ArchiveError naming a file that cannot be read.
 */
export async function setDigest(store: ArchiveStore, result: JobResult): Promise<string> {
  const limit = pLimit(8);
  const lines = await Promise.all(
    result.files.map((file) =>
      limit(async () => {
        try {
          const head = await store.s3.send(new HeadObjectCommand({ Bucket: store.bucket, Key: file.key }));
          return `${file.name}\t${head.ContentLength ?? ''}\t${head.ETag ?? ''}`;
        } catch (error) {
          throw new ArchiveError(file.name, 'could not be read', { cause: error });
        }
      }),
    ),
  );
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

/** The zip at `key` when it was built from the set whose digest is `digest`; else `null`. */
async function storedArchive(
  store: ArchiveStore,
  key: string,
  digest: string,
): Promise<StoredArchive | null> {
  try {
    const head = await store.s3.send(new HeadObjectCommand({ Bucket: store.bucket, Key: key }));
    if (head.Metadata?.[DIGEST_METADATA] !== digest) return null;
    return { key, bytes: head.ContentLength ?? 0 };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw new ArchiveError(key, 'the stored zip could not be read', { cause: error });
  }
}

/**
 * The zip of `result` at `key`: the stored one when it was built from the set as it is stored
 * now, else built ({@link buildArchive}) and stored for the next time.
 *
 * @throws ArchiveError as {@link buildArchive} does.
 */
export async function setArchive(
  store: ArchiveStore,
  result: JobResult,
  key: string,
): Promise<StoredArchive & { built: boolean }> {
  const digest = await setDigest(store, result);
  const stored = await storedArchive(store, key, digest);
  if (stored !== null) return { ...stored, built: false };
  return { ...(await buildArchive(store, result, key, digest)), built: true };
}

/** What a file must be, by the manifest. */
interface Expected {
  bytes: number;
  sha256: string;
}

/**
 * Builds the zip of `result` at `key`: every file of the set in its order, the manifest last;
 * `digest` ({@link setDigest}) is recorded on it, so {@link setArchive} can reuse it.
 *
 * @throws ArchiveError naming the file that is missing from or differs from the manifest, or
 *   whose reading failed; the upload is aborted and nothing is left at `key` (a zip stored there
 *   before stays, recording the digest it was built from).
 */
export async function buildArchive(
  store: ArchiveStore,
  result: JobResult,
  key: string,
  digest?: string,
): Promise<StoredArchive> {
  const { manifest, expected } = await readManifest(store, result);
  // A zip holds all the manifest lists: a file the job does not name would be missing silently.
  const named = new Set(result.files.map((file) => file.name));
  const missing = [...expected.keys()].find((name) => !named.has(name));
  if (missing !== undefined)
    throw new ArchiveError(missing, 'is in the manifest but not in the published set');
  const archive = archiver('zip', { zlib: { level: 6 } });
  // archiver's streams are readable-stream's, which lib-storage does not take for Node's own.
  const body = archive.pipe(new PassThrough());
  const upload = new Upload({
    client: store.s3,
    params: {
      Bucket: store.bucket,
      Key: key,
      Body: body,
      ContentType: 'application/zip',
      ...(digest !== undefined ? { Metadata: { [DIGEST_METADATA]: digest } } : {}),
    },
  });
  const uploaded = upload.done();
  const failed = failureOf(archive, uploaded);
  try {
    for (const file of result.files) {
      if (file.name === manifest.name) continue;
      await appendChecked(store, archive, file, expected, failed);
    }
    archive.append(manifest.body, { name: manifest.name });
    await Promise.race([archive.finalize(), failed]);
    await Promise.race([uploaded, failed]);
    return { key, bytes: archive.pointer() };
  } catch (error) {
    archive.abort();
    await upload.abort().catch(() => undefined);
    throw error instanceof ArchiveError
      ? error
      : new ArchiveError(key, 'the zip could not be stored', { cause: error });
  }
}

/** Rejects when the zip or its upload fails (never resolves otherwise). */
function failureOf(archive: ReturnType<typeof archiver>, uploaded: Promise<unknown>): Promise<never> {
  const failed = new Promise<never>((_, reject) => {
    archive.on('error', reject);
    archive.on('warning', reject);
    uploaded.catch(reject);
  });
  failed.catch(() => undefined);
  return failed;
}

/**
 * The manifest as stored (checked against the job's record of it) and what it says of each file.
 * It is small (a few kB): it is the one object read whole.
 */
async function readManifest(
  store: ArchiveStore,
  result: JobResult,
): Promise<{ manifest: { name: string; body: Buffer }; expected: Map<string, Expected> }> {
  const entry = result.files.find((file) => file.name === MANIFEST_NAME);
  if (entry === undefined) throw new ArchiveError(MANIFEST_NAME, 'the set has no manifest');
  const body = Buffer.concat(await (await readObject(store, entry)).toArray());
  const sha256 = createHash('sha256').update(body).digest('hex');
  if (sha256 !== entry.sha256) throw new ArchiveError(MANIFEST_NAME, 'differs from the one published');
  const expected = new Map<string, Expected>();
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { files: (Expected & { name: string })[] };
    for (const file of parsed.files) {
      expected.set(file.name, { bytes: file.bytes, sha256: file.sha256 });
    }
  } catch (error) {
    throw new ArchiveError(MANIFEST_NAME, 'is not a manifest', { cause: error });
  }
  return { manifest: { name: entry.name, body }, expected };
}

/** Appends one file, checked as it streams; resolves once the zip has taken it whole. */
async function appendChecked(
  store: ArchiveStore,
  archive: ReturnType<typeof archiver>,
  file: JobFile,
  expected: ReadonlyMap<string, Expected>,
  failed: Promise<never>,
): Promise<void> {
  const wanted = expected.get(file.name);
  if (wanted === undefined) throw new ArchiveError(file.name, 'is not in the manifest');
  const body = await readObject(store, file);
  const checked = checkedStream(file.name, wanted);
  body.on('error', (error) => checked.destroy(error));
  const fail = (error: unknown): never => {
    throw error instanceof ArchiveError
      ? error
      : new ArchiveError(file.name, 'could not be read', { cause: error });
  };
  // events.once resolves with an 'error' event's arguments when that is the event waited for.
  const broken = once(checked, 'error').then(([error]) => fail(error), fail);
  broken.catch(() => undefined);
  const entered = once(archive, 'entry');
  archive.append(body.pipe(checked), { name: file.name, store: COMPRESSED.test(file.name) });
  try {
    await Promise.race([entered, broken, failed]);
  } finally {
    body.destroy();
  }
}

/** Passes bytes through unchanged; fails at the end when their size or SHA-256 is not `wanted`. */
function checkedStream(name: string, wanted: Expected): Transform {
  const hash = createHash('sha256');
  let bytes = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      hash.update(chunk);
      bytes += chunk.length;
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      const sha256 = hash.digest('hex');
      if (bytes === wanted.bytes && sha256 === wanted.sha256) callback();
      else callback(new ArchiveError(name, 'the stored file differs from the manifest (size or SHA-256)'));
    },
  });
}

/** An object's body as a stream. */
async function readObject(store: ArchiveStore, file: JobFile): Promise<Readable> {
  try {
    const answer = await store.s3.send(new GetObjectCommand({ Bucket: store.bucket, Key: file.key }));
    return answer.Body as Readable;
  } catch (error) {
    throw new ArchiveError(file.name, 'could not be read', { cause: error });
  }
}
