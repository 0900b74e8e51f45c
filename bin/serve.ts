#!/usr/bin/env -S npx tsx
/**
 * `npm run serve`: the HTTP API (the same Hono app as the Lambda function, over
 * `@hono/node-server`), served locally over the embedded simulator and an in-process s3rver, with
 * exports run by the export state machine `infra/` synthesizes, executed in-process by
 * aws-local-stepfunctions (`lib/local/local-runner.ts`) with the same task handlers as
 * `functions/` (`lib/local/`). Secrets
 * come from the simulator's demo profiles. Nothing here is used on AWS.
 */
import { existsSync } from 'node:fs';
import { constants } from 'node:os';
import { parseArgs } from 'node:util';

/** The signals that stop the server. */
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof STOP_SIGNALS)[number];

/** Seconds since the process started, as the progress lines show it. */
const elapsed = () => `${process.uptime().toFixed(1)} s`;

const USAGE = `Usage: npm run serve -- [--port N] [--s3-port N] [--time-zone ZONE] [--public-url URL]

Serves the pbs-export HTTP API and the accountant portal (/portal, with a development sign-in)
on http://127.0.0.1:PORT (default 3000) over the embedded
simulator (demo data) and a local S3-compatible store (s3rver, temporary folder, removed on exit
unless it holds closed sets, which pbs-export never deletes).
Exports run in-process: the export state machine as the stack synthesizes it, executed by
aws-local-stepfunctions (retries after 0.2 s instead of the deployed backoff).

  --port N          port of the API (default 3000; 0 = any free port)
  --s3-port N       port of the local S3 store (default: any free port)
  --time-zone ZONE  time zone registered for every profile (default UTC)
  --public-url URL  URL clients reach the API at, for status URLs (default: the server's own URL)
  -h, --help        this text

Log level: POWERTOOLS_LOG_LEVEL (default WARN here).`;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: 'string', default: '3000' },
      's3-port': { type: 'string', default: '0' },
      'time-zone': { type: 'string', default: 'UTC' },
      'public-url': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const publicUrl = values['public-url'];
  if (publicUrl !== undefined && !/^https?:\/\/[^\s?#]+$/.test(publicUrl)) {
    throw new Error('--public-url: expected an http(s) URL without query or fragment');
  }
  // Local defaults: quieter logs, no EMF metric lines (both still overridable).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  // The AWS SDK's nine-line notice that its 2027 releases need Node 22, once per S3 client: the
  // README says it once (Node 22 recommended). An explicit setting of the variable is kept.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

  // A signal during the start is held until the parts started can be stopped and removed. The
  // listeners stay for the process's life (one removed and another added would leave a moment in
  // which a signal ends the process at once).
  let early: StopSignal | undefined;
  let onSignal = (signal: StopSignal): void => {
    if (early === undefined) process.stderr.write(`${signal}: stopping once the start ends\n`);
    early ??= signal;
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => onSignal(signal));

  process.stderr.write(`[${elapsed()}] loading the server's modules\n`);
  // Imported here, not at the top, so that the line above shows before the seconds they take.
  const { jobEndLines, removeLocalStoreUnlessClosed, startLocalService } = await import(
    '../lib/local/index.ts'
  );
  const service = await startLocalService({
    onStep: (step) => process.stderr.write(`[${elapsed()}] ${step}\n`),
    port: Number(values.port),
    s3Port: Number(values['s3-port']),
    timeZone: values['time-zone'],
    ...(publicUrl !== undefined ? { publicUrl } : {}),
    // One line per ended export: its notice (what subscribers of the deployed topic would get),
    // a failure with its reason.
    ...jobEndLines((line) => process.stderr.write(line)),
  });
  const { simulator } = service;
  // Whatever ends the process (a second signal, a crash, process.exit), its data folder goes with
  // it, unless it holds closed sets (as `service.close()` does).
  process.once('exit', () => removeLocalStoreUnlessClosed(service.s3Dir));
  let stopping = false;
  service.machineReady.then(
    () => process.stderr.write(`[${elapsed()}] export state machine ready: exports run\n`),
    (error: unknown) => {
      // A stop cancels a synthesis still running: that is no failure.
      if (stopping) return;
      process.stderr.write(`serve failed: ${error instanceof Error ? error.message : String(error)}\n`);
      void service.close().finally(() => process.exit(1));
    },
  );

  const base = service.url;
  process.stdout.write(
    [
      `pbs-export HTTP API (local): ${base}`,
      `  accountant portal: ${service.portalUrl}   (development sign-in: pick the profiles a token allows)`,
      `  simulator (demo data): ${simulator.url}   profiles: ${simulator.profiles.map((p) => p.name).join(', ')}`,
      `  local S3 store: ${service.s3Endpoint} bucket ${service.bucket} (data in ${service.s3Dir}, removed on exit unless it holds closed sets)`,
      '',
      'Try:',
      `  curl -s -X POST ${base}/reports -H 'content-type: application/json' \\`,
      `       -d '{"profile":"demo","period":"2025-10","formats":["csv","xlsx"]}'`,
      `  curl -s ${base}/reports/<jobId>            # state, then files with download links`,
      `  curl -s '${base}/reports?profile=demo&limit=5'`,
      `  curl -s ${base}/openapi.json              # the OpenAPI 3.1 document`,
      `  curl -s -X POST ${base}/reports -H 'content-type: application/json' -H 'Idempotency-Key: my-key-1' \\`,
      `       -d '{"profile":"acme","period":"2025"}'`,
      '',
      `Ctrl-C to stop. (Answering after ${elapsed()}; exports asked for before the state machine is ready wait for it.)`,
      '',
    ].join('\n'),
  );

  // The first signal stops the server (running exports end first) with a line that says so, and
  // the exit status a shell reports for it (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP); a
  // second one stops it at once (the 'exit' listener above still removes the data folder).
  const stop = (signal: StopSignal): void => {
    const code = 128 + constants.signals[signal];
    if (stopping) {
      process.stderr.write(`serve stopped at once by a second ${signal}: running exports were abandoned\n`);
      process.exit(code);
    }
    stopping = true;
    // Queued exports are not started: they fail, saying why; running ones end first.
    void service.starter
      .stopQueued()
      .then(({ running, cancelled }) => {
        process.stderr.write(`stopping (${signal}): ${stopCounts(running, cancelled, signal)}\n`);
        return service.close();
      })
      .then(() => {
        const removed = !existsSync(service.s3Dir);
        process.stderr.write(
          `serve stopped by ${signal}${removed ? `: removed the local S3 store's data (${service.s3Dir})` : ''}\n`,
        );
        process.exit(code);
      });
  };
  onSignal = stop;
  if (early !== undefined) stop(early);
}

main().catch((error: unknown) => {
  process.stderr.write(`serve failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

/**
 * What a stop waits for and what it cancelled: `waiting for 1 running export to end; 2 queued
 * exports cancelled (failed: serve stopped before they started)`.
 */
function stopCounts(running: number, cancelled: number, signal: StopSignal): string {
  const counted = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  const wait =
    running === 0 ? 'no export running' : `waiting for ${counted(running, 'running export')} to end`;
  const queued =
    cancelled === 0
      ? ''
      : `; ${counted(cancelled, 'queued export')} cancelled (failed: serve stopped before ${cancelled === 1 ? 'it' : 'they'} started)`;
  return `${wait}${queued} (a second ${signal} stops at once)`;
}
