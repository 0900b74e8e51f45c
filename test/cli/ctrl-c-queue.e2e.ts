/**
 * Ctrl-C on `npm run serve` while one export of an API key runs and others of the same key wait
 * their turn (one export per key at a time): the running one ends, the queued ones are not
 * started. Each queued job ends failed with a reason a user reads, and the stop line says how
 * many exports run on and how many were cancelled. Run as a user runs it: the launcher, real
 * POSTs on loopback, SIGINT to the process group.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv, startGroup } from '../support/process-group.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-ctrl-c-queue-'));
  await mkdir(join(dir, 'tmp'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** serve's start takes tens of seconds on a busy machine (its modules, then the state machine). */
const SERVE_TIMEOUT = 240_000;

describe('Ctrl-C on serve with exports running and queued', () => {
  it(
    'lets the running export end, fails the queued ones as not started, and says how many of each',
    async () => {
      const serve = startGroup(process.execPath, ['bin/serve.mjs', '--port', '0'], childEnv(dir));
      await serve.printed('export state machine ready');
      const base = /HTTP API \(local\): (http:\/\/\S+)/.exec(serve.output.stdout)?.[1] as string;
      // Three exports of one profile (one key): the first runs, the other two wait for it.
      const jobIds: string[] = [];
      for (const period of ['2025', '2025-11', '2025-12']) {
        const answer = await fetch(`${base}/reports`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ profile: 'demo', period, reports: ['gains'], gains: { taxRules: 'us' } }),
        });
        jobIds.push(((await answer.json()) as { jobId: string }).jobId);
      }
      const states = async () =>
        Promise.all(
          jobIds.map(
            async (id) => ((await (await fetch(`${base}/reports/${id}`)).json()) as { state: string }).state,
          ),
        );
      let seen = await states();
      while (seen[0] === 'queued') {
        await new Promise((resolve) => setTimeout(resolve, 100));
        seen = await states();
      }
      serve.signalGroup('SIGINT');
      const ended = await serve.ended;

      const output = `${ended.stdout}\n${ended.stderr}`;
      const lineOf = (id: string) => output.split('\n').filter((line) => line.includes(id));
      expect(seen).toEqual(['running', 'queued', 'queued']);
      expect(ended.status).toBe(130);
      expect(ended.stderr).toContain(
        'stopping (SIGINT): waiting for 1 running export to end; 2 queued exports cancelled (failed: serve stopped before they started)',
      );
      expect(lineOf(jobIds[0] as string).join('\n')).not.toContain('failed');
      expect(lineOf(jobIds[0] as string)).toHaveLength(1);
      for (const id of jobIds.slice(1)) {
        expect(lineOf(id)).toHaveLength(1);
        expect(lineOf(id)[0]).toMatch(
          /failed\): \S+ \(ServeStoppedError: serve stopped before this export started/,
        );
      }
    },
    SERVE_TIMEOUT,
  );
});
