/**
 * `npm run serve` tells of an ended export once: a job that fails (a UK gains request over demo
 * data in USD, without rates) gets one line on the server's output, its notice with the reason,
 * not the worker's warning, the notice and the runner's end besides. Run as a user runs it (the
 * launcher, a real POST on loopback), stopped with SIGTERM once the job has failed, so that every
 * line the export's end prints is in.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv, startGroup } from '../support/process-group.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-serve-end-'));
  await mkdir(join(dir, 'tmp'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** serve's start takes tens of seconds on a busy machine (its modules, then the state machine). */
const SERVE_TIMEOUT = 240_000;

describe('npm run serve: one line per ended export', () => {
  it(
    'prints a failed job once, its notice with the field and reason',
    async () => {
      const serve = startGroup(process.execPath, ['bin/serve.mjs', '--port', '0'], childEnv(dir));
      await serve.printed('export state machine ready');
      const base = /HTTP API \(local\): (http:\/\/\S+)/.exec(serve.output.stdout)?.[1] as string;
      const request = { profile: 'demo', period: '2025-10', reports: ['gains'], gains: { taxRules: 'uk' } };
      const started = (await (
        await fetch(`${base}/reports`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(request),
        })
      ).json()) as { jobId: string };
      let state = 'queued';
      while (state !== 'failed' && state !== 'succeeded') {
        await new Promise((resolve) => setTimeout(resolve, 500));
        state = ((await (await fetch(`${base}/reports/${started.jobId}`)).json()) as { state: string }).state;
      }
      serve.signalGroup('SIGTERM');
      const ended = await serve.ended;

      const lines = `${ended.stdout}\n${ended.stderr}`.split('\n').filter((l) => l.includes(started.jobId));
      expect(state).toBe('failed');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^notice \(pbs-export: demo 2025-10 failed\): http:\/\/\S+ \(.*gains\.currency/,
      );
    },
    SERVE_TIMEOUT,
  );
});
