/**
 * Repair of S3 sets whose process was killed while copying them into place. S3 cannot rename
 * several objects at once, so a `kill -9` between a set's first copy and its manifest's copy
 * leaves some files at their final keys without a manifest. The set was complete (its commit
 * marker says so, and lists its keys), so the next run finishes the copies, manifest last.
 */
import { loadS3Sdk } from '../aws-sdk.ts';
import { messageOf, StorageError } from './errors.ts';
import { isDeadOwner, type ProcessOwner } from './owner.ts';
import { COMMIT_MARKER, readCommitMarker, type SetPlaces } from './s3-commit-marker.ts';
import {
  type CopySettings,
  copyManifestLast,
  copyObject,
  deleteKey,
  deleteKeys,
  STAGING_SEGMENT,
} from './s3-copy.ts';

/** Options of {@link repairDeadSets}. */
export interface RepairSettings extends CopySettings {
  /** The sink's key prefix: empty, or ending with `/`. */
  keyPrefix: string;
  /** The repairing process: judge of whether a marker's owner is dead. */
  owner: ProcessOwner;
}

/** What a repair did; failures are reported here, never thrown. */
export interface RepairResult {
  /** The sets put in place, as `s3://bucket/<final prefix>`. */
  completed: string[];
  /** Sets (or the listing) that could not be judged or completed, with the reason. */
  failed: { location: string; error: unknown }[];
}

/**
 * Finds the commit markers under the sink's `_staging/` and rolls forward the sets of dead
 * processes of this host (`isDeadOwner`, as for scratch folders): every object copied again to its
 * final key (the copies are idempotent: the staged bytes do not change), the manifest only once
 * every other copy succeeded, then the marker and the staged keys deleted. Sets of live processes
 * and of other hosts (e.g. a Lambda finish, which its state machine retries) are never touched,
 * nor staged sets without a marker: they were killed before their first copy, so nothing is at a
 * final key and the bucket's lifecycle rule expires them. A set that cannot be completed (a staged
 * object already expired or removed) is reported and its marker kept.
 */
export async function repairDeadSets(settings: RepairSettings): Promise<RepairResult> {
  const { client, bucket, keyPrefix, owner } = settings;
  const result: RepairResult = { completed: [], failed: [] };
  const stagingRoot = `${keyPrefix}${STAGING_SEGMENT}/`;
  let markers: string[];
  try {
    markers = await listMarkers(settings, stagingRoot);
  } catch (error) {
    result.failed.push({ location: `s3://${bucket}/${stagingRoot}`, error });
    return result;
  }
  for (const markerKey of markers) {
    const places = placesOf(markerKey, stagingRoot, keyPrefix);
    const location = `s3://${bucket}/${places.finalPrefix}`;
    try {
      const marker = await readCommitMarker(client, bucket, places);
      if (!isDeadOwner(marker.owner, owner)) continue;
      await copyManifestLast(marker.objects, (object) => copyObject(settings, object));
      result.completed.push(location);
      // In place: the marker goes first (nothing left to repair), then the staged copies.
      const errors = [
        await deleteKey(client, bucket, markerKey),
        ...(await deleteKeys(
          client,
          bucket,
          marker.objects.map((object) => object.stagingKey),
        )),
      ];
      for (const error of errors) if (error !== undefined) result.failed.push({ location, error });
    } catch (error) {
      result.failed.push({ location, error });
    }
  }
  return result;
}

/**
 * The keys of commit markers under `stagingRoot`. No `MaxKeys`: the default page size is what S3
 * uses anyway, and s3rver answers 500 to a listing with `max-keys` (DESIGN.md, known traps).
 */
async function listMarkers(settings: RepairSettings, stagingRoot: string): Promise<string[]> {
  const { client, bucket } = settings;
  const markers: string[] = [];
  const { paginateListObjectsV2 } = await loadS3Sdk();
  try {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: stagingRoot })) {
      for (const object of page.Contents ?? []) {
        const key = object.Key ?? '';
        // `_staging/.commit` itself belongs to no set.
        if (key.endsWith(`/${COMMIT_MARKER}`) && key.length > stagingRoot.length + COMMIT_MARKER.length) {
          markers.push(key);
        }
      }
    }
  } catch (error) {
    throw new StorageError(`s3://${bucket}/${stagingRoot}`, `could not list: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return markers;
}

/** The staging and final prefixes of the set whose marker is `markerKey`. */
function placesOf(markerKey: string, stagingRoot: string, keyPrefix: string): SetPlaces {
  const stagingPrefix = markerKey.slice(0, -COMMIT_MARKER.length);
  return { stagingPrefix, finalPrefix: `${keyPrefix}${stagingPrefix.slice(stagingRoot.length)}` };
}
