/**
 * The job store: one JSON record per job at `jobs/{jobId}.json`, created with `If-None-Match: *`
 * (two racing starts cannot both win) and updated with `If-Match: <ETag>` (read, change, write,
 * again on a lost race), plus an empty index marker per job for listing a profile's jobs.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { loadS3Sdk } from '../aws-sdk.ts';
import { retry } from '../retry.ts';
import { InvalidCursorError, JobConflictError, JobNotFoundError } from './errors.ts';
import { type JobRecord, KEYS } from './records.ts';
import { getJson, isLostRace, putJson } from './s3-objects.ts';

/** Job ids are 32 lowercase hex characters (see `jobIdFor`). */
export const JOB_ID = /^[0-9a-f]{32}$/;

/** Result of {@link JobStore.create}: the stored job, and whether this call created it. */
export interface CreateResult {
  created: boolean;
  job: JobRecord;
}

/** Jobs in S3. Every method throws the SDK's error on anything but the expected 404/412. */
export interface JobStore {
  /** Creates the record unless one exists under its id; then returns the existing one. */
  create(job: JobRecord): Promise<CreateResult>;
  /** The record, or `null`. */
  get(jobId: string): Promise<JobRecord | null>;
  /** The record; throws {@link JobNotFoundError}. */
  require(jobId: string): Promise<JobRecord>;
  /**
   * Applies `change` to the current record and writes it if unchanged meanwhile, retrying on a
   * lost race. `change` returning the record it was given (same object) writes nothing.
   */
  update(jobId: string, change: (job: JobRecord) => JobRecord): Promise<JobRecord>;
  /** Removes a record and its index marker (used to undo a create whose start failed). */
  remove(job: JobRecord): Promise<void>;
  /** The profile's most recent jobs, newest first (the first {@link JobStore.listPage}). */
  listByProfile(profile: string, limit: number): Promise<JobRecord[]>;
  /**
   * One page of the profile's jobs, newest first: at most `limit`, after the page `after` ended
   * (a {@link JobPage.next} of an earlier page; none: the newest). Every job is on exactly one
   * page, however many there are; jobs created meanwhile are newer than any cursor and so only
   * on the first page.
   */
  listPage(profile: string, options: { limit: number; after?: string }): Promise<JobPage>;
}

/** A page of a profile's jobs. */
export interface JobPage {
  jobs: JobRecord[];
  /** Where the next (older) page starts; absent on the last page. */
  next?: string;
}

/**
 * A page cursor: the name of the last index marker a page covered (`{inverted ms}-{jobId}`, see
 * `KEYS.jobIndex`); listing goes on after it.
 */
export const JOB_CURSOR = /^\d{13}-[0-9a-f]{32}$/;

/** Options of {@link createJobStore}. */
export interface JobStoreOptions {
  client: S3Client;
  bucket: string;
  /** Attempts of a conditional update before {@link JobConflictError}. Default 5. */
  updateAttempts?: number;
}

/** Builds the S3 job store. */
export function createJobStore(options: JobStoreOptions): JobStore {
  const { client, bucket, updateAttempts = 5 } = options;

  const get = async (jobId: string) =>
    (await getJson<JobRecord>(client, bucket, KEYS.job(jobId)))?.value ?? null;
  const indexKey = (job: JobRecord) => KEYS.jobIndex(job.profile, Date.parse(job.createdAt), job.jobId);
  // The marker key only depends on the record, so writing it again is harmless; it is written on
  // every create call so that a crash between record and marker heals on the retry.
  const putMarker = async (job: JobRecord) => {
    const { PutObjectCommand } = await loadS3Sdk();
    return client.send(new PutObjectCommand({ Bucket: bucket, Key: indexKey(job), Body: new Uint8Array(0) }));
  };

  const store: JobStore = {
    async create(job) {
      let created = true;
      let stored = job;
      try {
        await putJson(client, bucket, KEYS.job(job.jobId), job, { ifNoneMatch: '*' });
      } catch (error) {
        if (!isLostRace(error)) throw error;
        created = false;
        // 409 means another create is in flight: reading may still miss it, so retry the read.
        stored = await retry(
          async () => (await get(job.jobId)) ?? Promise.reject(new JobNotFoundError(job.jobId)),
          { attempts: updateAttempts, retryable: (miss) => miss instanceof JobNotFoundError },
        ).catch((miss: unknown) => {
          throw miss instanceof JobNotFoundError ? new JobConflictError(job.jobId, { cause: error }) : miss;
        });
      }
      await putMarker(stored);
      return { created, job: stored };
    },
    get,
    async require(jobId) {
      const job = await get(jobId);
      if (job === null) throw new JobNotFoundError(jobId);
      return job;
    },
    async update(jobId, change) {
      try {
        return await retry(
          async () => {
            const current = await getJson<JobRecord>(client, bucket, KEYS.job(jobId));
            if (current === null) throw new JobNotFoundError(jobId);
            const next = change(current.value);
            if (next === current.value) return next;
            await putJson(client, bucket, KEYS.job(jobId), next, { ifMatch: current.etag });
            return next;
          },
          { attempts: updateAttempts, retryable: isLostRace },
        );
      } catch (error) {
        if (isLostRace(error)) throw new JobConflictError(jobId, { cause: error });
        throw error;
      }
    },
    async remove(job) {
      const { DeleteObjectCommand } = await loadS3Sdk();
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: indexKey(job) }));
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: KEYS.job(job.jobId) }));
    },
    async listByProfile(profile, limit) {
      return (await store.listPage(profile, { limit })).jobs;
    },
    async listPage(profile, { limit, after }) {
      if (after !== undefined && !JOB_CURSOR.test(after)) throw new InvalidCursorError(after);
      const prefix = KEYS.jobIndexPrefix(profile);
      const markers: { name: string; id: string }[] = [];
      const { paginateListObjectsV2 } = await loadS3Sdk();
      // No MaxKeys: s3rver answers 500 to max-keys, and S3's default page (1000) holds any limit
      // up to 100 plus the one marker that tells whether another page follows. Markers sort
      // newest first, so the page after a cursor starts right after its marker.
      const pages = paginateListObjectsV2(
        { client },
        {
          Bucket: bucket,
          Prefix: prefix,
          ...(after !== undefined ? { StartAfter: `${prefix}${after}` } : {}),
        },
      );
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const name = object.Key?.slice(prefix.length) ?? '';
          const id = name.split('-')[1];
          if (JOB_CURSOR.test(name) && id !== undefined && !markers.some((marker) => marker.id === id)) {
            markers.push({ name, id });
          }
        }
        if (markers.length > limit) break;
      }
      const taken = markers.slice(0, limit);
      const limitReads = pLimit(8);
      const jobs = await Promise.all(taken.map(({ id }) => limitReads(() => get(id))));
      const last = taken.at(-1);
      return {
        // A marker without a record is an undone start: skip it.
        jobs: jobs.filter((job): job is JobRecord => job !== null),
        ...(markers.length > limit && last !== undefined ? { next: last.name } : {}),
      };
    },
  };
  return store;
}
