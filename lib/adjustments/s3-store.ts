/**
 * The adjustments store on S3: one object per version, `adjustments/<profile>/adjustments-v<N>.json`
 * in the reports bucket, which the stack versions (so even a deleted or replaced object keeps its
 * bytes, and no lifecycle rule expires this prefix). A version is written with `If-None-Match: *`:
 * S3 refuses to replace it, so two changes based on the same version cannot both land.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { isNotFound, isPreconditionFailed } from '../storage/index.ts';
import { AdjustmentsNotFoundError } from './errors.ts';
import {
  type AdjustmentsStore,
  checkProfile,
  parseStoredVersion,
  versionedStore,
  versionName,
  versionOf,
} from './store.ts';

/** Key prefix of the adjustments in the bucket. */
export const ADJUSTMENTS_PREFIX = 'adjustments/';

/** Settings of {@link createS3AdjustmentsStore}: the client is injected. */
export interface S3AdjustmentsStoreOptions {
  client: S3Client;
  bucket: string;
  /** Default {@link ADJUSTMENTS_PREFIX}. */
  prefix?: string;
}

/** A store of one object per version (see the module comment). */
export function createS3AdjustmentsStore(options: S3AdjustmentsStoreOptions): AdjustmentsStore {
  const { client, bucket } = options;
  const root = options.prefix ?? ADJUSTMENTS_PREFIX;
  const folder = (profile: string) => {
    checkProfile(profile);
    return `${root}${profile}/`;
  };
  return versionedStore({
    // An object is written whole (S3 has no partial objects), so no number is taken without a version.
    async versions(profile) {
      let max = 0;
      const prefix = folder(profile);
      const { paginateListObjectsV2 } = await loadS3Sdk();
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: prefix })) {
        for (const item of page.Contents ?? [])
          max = Math.max(max, versionOf((item.Key ?? '').slice(prefix.length)) ?? 0);
      }
      return { latest: max, last: max };
    },
    async get(profile, version) {
      const { GetObjectCommand } = await loadS3Sdk();
      const key = `${folder(profile)}${versionName(version)}`;
      let bytes: Uint8Array;
      try {
        const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
        bytes = (await response.Body?.transformToByteArray()) ?? new Uint8Array();
      } catch (error) {
        if (isNotFound(error)) throw new AdjustmentsNotFoundError(profile, version, { cause: error });
        throw error;
      }
      return parseStoredVersion(
        `s3://${bucket}/${key}`,
        bytes,
        'restore the version of the object before it (the bucket keeps every version of an object)',
      );
    },
    async create(profile, version, bytes) {
      // `If-None-Match: *`: S3 refuses to replace a version, so a racing writer loses.
      const { PutObjectCommand } = await loadS3Sdk();
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: `${folder(profile)}${versionName(version)}`,
          Body: bytes,
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
    },
    isTaken: isPreconditionFailed,
  });
}
