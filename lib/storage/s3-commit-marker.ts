/**
 * The commit marker of a staged S3 set: a small object `_staging/<set prefix>/.commit` written once
 * the whole set is staged and before its first copy into place. It says that the set is complete
 * and which final keys a commit may have written, and names the process that commits it, so that
 * the next run can finish the copies of a process killed in between (`s3-repair.ts`).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { z } from 'zod';
import { loadS3Sdk } from '../aws-sdk.ts';
import { messageOf, StorageError } from './errors.ts';
import { assertObjectName } from './names.ts';
import type { StagedObject } from './s3-copy.ts';

/** The marker's name inside the set's staging prefix; no object of a set may have this name. */
export const COMMIT_MARKER = '.commit';

const markerSchema = z.object({
  version: z.literal(1),
  owner: z.object({ host: z.string().regex(/^[0-9a-f]{8}$/), pid: z.number().int().positive() }),
  /** In the order of the commit: the last one (the manifest) is copied last. */
  objects: z
    .array(
      z.object({
        stagingKey: z.string().min(1),
        finalKey: z.string().min(1),
        bytes: z.number().int().nonnegative(),
        contentType: z.string(),
      }),
    )
    .min(1),
});

/** What a commit marker holds. */
export type CommitMarker = z.infer<typeof markerSchema>;

/** Where a set lives: its staging and final key prefixes, each ending with `/`. */
export interface SetPlaces {
  stagingPrefix: string;
  finalPrefix: string;
}

/**
 * Writes the marker of a complete set at `<stagingPrefix>.commit`.
 *
 * @throws StorageError naming the marker's key.
 */
export async function writeCommitMarker(
  client: S3Client,
  bucket: string,
  places: SetPlaces,
  marker: CommitMarker,
): Promise<void> {
  const key = `${places.stagingPrefix}${COMMIT_MARKER}`;
  const { PutObjectCommand } = await loadS3Sdk();
  try {
    await client.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: `${JSON.stringify(marker)}\n`,
        ContentType: 'application/json',
      }),
    );
  } catch (error) {
    throw new StorageError(
      `s3://${bucket}/${key}`,
      `could not record the set as complete: ${messageOf(error)}`,
      {
        cause: error,
      },
    );
  }
}

/**
 * Reads and checks the marker at `<stagingPrefix>.commit`. A marker is data found in a bucket: it
 * is refused unless each of its objects is a valid name under the set's staging prefix, going to
 * the same name under its final prefix, so it can never make a repair copy anything else.
 *
 * @throws StorageError naming the marker's key and the reason.
 */
export async function readCommitMarker(
  client: S3Client,
  bucket: string,
  places: SetPlaces,
): Promise<CommitMarker> {
  const key = `${places.stagingPrefix}${COMMIT_MARKER}`;
  const location = `s3://${bucket}/${key}`;
  let text: string;
  const { GetObjectCommand } = await loadS3Sdk();
  try {
    const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    text = (await response.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    throw new StorageError(location, `could not read the commit marker: ${messageOf(error)}`, {
      cause: error,
    });
  }
  let marker: CommitMarker;
  try {
    marker = markerSchema.parse(JSON.parse(text));
    for (const object of marker.objects) checkPlaces(object, places);
  } catch (error) {
    throw new StorageError(location, `is not a commit marker: ${messageOf(error)}`, { cause: error });
  }
  return marker;
}

/** Throws unless `object` goes from a name under the staging prefix to the same name under the final one. */
function checkPlaces(object: StagedObject, places: SetPlaces): void {
  const name = object.stagingKey.slice(places.stagingPrefix.length);
  if (!object.stagingKey.startsWith(places.stagingPrefix) || name === COMMIT_MARKER) {
    throw new Error(`${JSON.stringify(object.stagingKey)} is not an object of the set`);
  }
  assertObjectName(name);
  if (object.finalKey !== `${places.finalPrefix}${name}`) {
    throw new Error(`${JSON.stringify(object.finalKey)} is not the final key of ${JSON.stringify(name)}`);
  }
}
