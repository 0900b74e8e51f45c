#!/usr/bin/env -S npx tsx
/**
 * `npm run serve`: the HTTP API of the Lambda function, served locally over the embedded
 * simulator and an in-process s3rver, with exports run by the LOCAL stand-in of the export state
 * machine (`lib/workflow/local.ts`: same task handlers, in order; for local use only). Secrets
 * come from the simulator's demo profiles. Nothing here is used on AWS.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import S3rver from 's3rver';
import { createFailHandler } from '../functions/export-fail.ts';
import { createFetchShardHandler } from '../functions/export-fetch-shard.ts';
import { createFinishHandler } from '../functions/export-finish.ts';
import { createPlanHandler } from '../functions/export-plan.ts';
import { createApiHandler } from '../functions/http-api.ts';
import { startSimulator } from '../lib/simulator/index.ts';
import { createS3Client } from '../lib/storage/index.ts';
import type { ProfileRegistry } from '../lib/workflow/contract.ts';
import type { WorkerContext } from '../lib/workflow/handlers.ts';
import { createJobStore } from '../lib/workflow/jobs.ts';
import { createLocalStarter, startLocalApiServer } from '../lib/workflow/local.ts';
import { createObservability } from '../lib/workflow/observability.ts';
import { createServiceFactory } from '../lib/workflow/service.ts';

const USAGE = `Usage: npm run serve -- [--port N] [--s3-port N] [--time-zone ZONE]

Serves the pbs-export HTTP API on http://127.0.0.1:PORT (default 3000) over the embedded
simulator (demo data) and a local S3-compatible store (s3rver, temporary folder, removed on exit).
Exports run in-process (a local stand-in for the Step Functions state machine).

  --port N          port of the API (default 3000; 0 = any free port)
  --s3-port N       port of the local S3 store (default: any free port)
  --time-zone ZONE  time zone registered for every profile (default UTC)
  -h, --help        this text

Log level: POWERTOOLS_LOG_LEVEL (default WARN here).`;

const BUCKET = 'pbs-local';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3000' },
      's3-port': { type: 'string', default: '0' },
      'time-zone': { type: 'string', default: 'UTC' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Local defaults: quieter logs, no EMF metric lines (both still overridable).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  const simulator = await startSimulator({});
  const dir = await mkdtemp(join(tmpdir(), 'pbs-serve-s3-'));
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port: Number(values['s3-port']),
    silent: true,
    directory: dir,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port: s3Port } = await s3rver.run();
  const s3 = createS3Client({
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${s3Port}`,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });

  const arnOf = (name: string) => `arn:aws:secretsmanager:local:000000000000:secret:pbs/${name}`;
  const registry: ProfileRegistry = Object.fromEntries(
    simulator.profiles.map((p) => [
      p.name,
      { secretArn: arnOf(p.name), timeZone: values['time-zone'], monthly: true },
    ]),
  );
  const readSecret = async (arn: string) => {
    const profile = simulator.profiles.find((p) => arnOf(p.name) === arn);
    if (!profile) throw new Error('no such local secret');
    return { apiKey: profile.apiKey, apiSecret: profile.apiSecret, profileGuid: profile.profileGuid };
  };
  const obs = createObservability('pbs-export-local');
  const jobs = createJobStore({ client: s3, bucket: BUCKET });
  const now = () => new Date();
  const workerContext: WorkerContext = {
    obs,
    jobs,
    s3,
    bucket: BUCKET,
    now,
    // Two shards at a time × 10 requests/s stays within the simulator's 20 per key.
    services: createServiceFactory({ registry, readSecret, baseUrl: simulator.url, requestsPerSecond: 10 }),
  };
  const starter = createLocalStarter(
    {
      plan: createPlanHandler(workerContext),
      fetchShard: createFetchShardHandler(workerContext),
      finish: createFinishHandler(workerContext),
      fail: createFailHandler(workerContext),
    },
    { onDone: (jobId, state) => process.stderr.write(`export ${jobId}: ${state}\n`) },
  );
  const api = await startLocalApiServer(
    createApiHandler({ obs, registry, jobs, starter, s3, bucket: BUCKET, now, linkExpirySeconds: 3600 }),
    { port: Number(values.port) },
  );

  const base = api.url;
  process.stdout.write(
    [
      `pbs-export HTTP API (local): ${base}`,
      `  simulator (demo data): ${simulator.url}   profiles: ${simulator.profiles.map((p) => p.name).join(', ')}`,
      `  local S3 store: http://127.0.0.1:${s3Port} bucket ${BUCKET} (data in ${dir}, removed on exit)`,
      '',
      'Try:',
      `  curl -s -X POST ${base}/reports -H 'content-type: application/json' \\`,
      `       -d '{"profile":"demo","period":"2025-10","formats":["csv","xlsx"]}'`,
      `  curl -s ${base}/reports/<jobId>            # state, then files with download links`,
      `  curl -s '${base}/reports?profile=demo&limit=5'`,
      `  curl -s -X POST ${base}/reports -H 'Idempotency-Key: my-key-1' -d '{"profile":"acme","period":"2025"}'`,
      '',
      'Ctrl-C to stop.',
      '',
    ].join('\n'),
  );

  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await api.close().catch(() => {});
      await starter.idle().catch(() => {});
      s3.destroy();
      await s3rver.close().catch(() => {});
      await simulator.close().catch(() => {});
      await rm(dir, { recursive: true, force: true });
      process.exit(0);
    })();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
