/**
 * A worker task in its own process, so a test can kill it (SIGKILL) part-way as Lambda ends an
 * invocation that times out. Configured by the JSON in `PBS_FAULT_CHILD` ({@link ChildConfig});
 * when it reaches the point named by `hangOn` it tells the parent (`{ hanging }` over IPC) and
 * waits forever for the kill.
 */

import { createJobStore, type ProfileRegistry } from '../../../lib/jobs/index.ts';
import { createServiceFactory } from '../../../lib/lambda/index.ts';
import type { PbsCredentials } from '../../../lib/pbs/index.ts';
import { createS3Client } from '../../../lib/storage/s3-client.ts';
import { createWorkers } from '../../../lib/workflow/index.ts';

/** What the parent hands the child. */
export interface ChildConfig {
  s3Endpoint: string;
  bucket: string;
  baseUrl: string;
  registry: ProfileRegistry;
  /** The simulator's demo credentials of the job's profile (public test values). */
  credentials: PbsCredentials;
  now: string;
  jobId: string;
  task: 'fetchShard' | 'finish';
  shard?: number;
  /**
   * `report-upload`: the second report object staged (under `_staging/reports/`);
   * `report-copy`: the second server-side copy of the staged set to its final keys under
   * `reports/` (the set is complete, partly in place, without its manifest);
   * `second-page`: a request for page 2.
   */
  hangOn: 'report-upload' | 'report-copy' | 'second-page';
  /** Page size the child's client asks for (default shape otherwise). */
  pageSize?: number;
}

/** The environment variable holding the child's configuration. */
export const CHILD_CONFIG_ENV = 'PBS_FAULT_CHILD';

const forever = () => new Promise<never>(() => {});

async function main(): Promise<void> {
  const config = JSON.parse(process.env[CHILD_CONFIG_ENV] ?? '{}') as ChildConfig;
  const tell = (message: unknown) => process.send?.(message);
  const s3 = await createS3Client({
    region: 'us-east-1',
    endpoint: config.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  let reportUploads = 0;
  let reportCopies = 0;
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const key = String((args.input as { Key?: unknown }).Key ?? '');
      const upload = /^(PutObject|CreateMultipartUpload)Command$/.test(context.commandName ?? '');
      if (config.hangOn === 'report-upload' && upload && key.startsWith('_staging/reports/')) {
        reportUploads += 1;
        if (reportUploads === 2) {
          tell({ hanging: key });
          await forever();
        }
      }
      if (config.hangOn === 'report-copy' && context.commandName === 'CopyObjectCommand') {
        reportCopies += 1;
        if (reportCopies === 2) {
          tell({ hanging: key });
          await forever();
        }
      }
      return next(args);
    },
    { step: 'initialize', name: 'childHang' },
  );
  const services = createServiceFactory({
    registry: config.registry,
    readSecret: async () => config.credentials,
    settings: {
      baseUrl: config.baseUrl,
      ...(config.pageSize !== undefined
        ? {
            shape: {
              pagination: {
                style: 'page' as const,
                pageParam: 'page',
                pageSizeParam: 'pageSize',
                pageSize: config.pageSize,
                firstPage: 1,
                totalItemsPath: 'totalItems',
                totalPagesPath: 'totalPages',
              },
            },
          }
        : {}),
    },
    client: {
      requestsPerSecond: 1000,
      burst: 50,
      sleep: async () => {},
      fetch: async (input, init) => {
        if (config.hangOn === 'second-page' && /[?&]page=2(&|$)/.test(String(input))) {
          tell({ hanging: 'page 2' });
          await forever();
        }
        return globalThis.fetch(input, init);
      },
    },
  });
  const workers = createWorkers({
    jobs: createJobStore({ client: s3, bucket: config.bucket }),
    s3,
    bucket: config.bucket,
    services,
    now: () => new Date(config.now),
  });
  if (config.task === 'finish') await workers.finish({ jobId: config.jobId });
  else await workers.fetchShard({ jobId: config.jobId, shard: config.shard ?? 0 });
  tell({ done: true });
}

main().catch((error: unknown) => {
  process.send?.({ error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  process.exitCode = 1;
});
