/**
 * What the workflow's finish does about closed periods: a run never publishes into a closed set
 * (the sink is guarded: a retried finish whose run was closed meanwhile is refused with
 * `SetClosedError`), and a scheduled monthly run first checks the profile's closed periods
 * (`checkCloses`): a restatement per period that changed and a "changed after close" notice;
 * nothing changed, only the line its manifest records (`closeCheck`).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { type ChangedAfterCloseNotice, checkCloses, createS3CloseStore, guardSink } from '../close/index.ts';
import type { JobRecord } from '../jobs/index.ts';
import type { Sink } from '../storage/index.ts';
import { createS3Sink } from '../storage/index.ts';
import type { ProfileService } from './services.ts';

/** The bucket's sink, refusing to write or delete inside a closed set. */
export function closeGuardedSink(s3: S3Client, bucket: string): Sink {
  return guardSink(createS3Sink({ client: s3, bucket }), createS3CloseStore({ client: s3, bucket }));
}

/**
 * For a scheduled job, the line of its manifest (`closeCheck`): what the check of the profile's
 * closed periods found, or why it could not run (the monthly export stands either way). Null for
 * a job started on demand.
 */
export async function monthlyCloseCheck(
  job: JobRecord,
  deps: {
    s3: S3Client;
    bucket: string;
    service: ProfileService;
    now: () => Date;
    workDir?: string;
    notifyClose?: (notice: ChangedAfterCloseNotice) => Promise<void>;
  },
): Promise<string | null> {
  if (job.source !== 'schedule') return null;
  try {
    const result = await checkCloses({
      store: createS3CloseStore({ client: deps.s3, bucket: deps.bucket }),
      sink: createS3Sink({ client: deps.s3, bucket: deps.bucket }),
      timeline: async () => deps.service.client,
      profile: job.profile,
      now: deps.now,
      ...(deps.workDir !== undefined ? { workDir: deps.workDir } : {}),
      ...(deps.notifyClose ? { notify: deps.notifyClose } : {}),
    });
    return result.line;
  } catch (error) {
    return `closed periods could not be checked: ${(error as Error).message}`;
  }
}
