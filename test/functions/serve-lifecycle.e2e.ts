/**
 * `npm run serve`'s start and stop as a user meets them (`startLocalService`, over real HTTP on
 * loopback): it answers while the export state machine is still being synthesized, sends a
 * browser at its root to the portal, leaves no data folder behind when its start fails, and keeps
 * each job's log lines to that job when exports run at the same time.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
/** Whether the state machine was ready when the first request was answered. */
let readyAtFirstAnswer: boolean | undefined;
let firstStatus: number | undefined;
beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  // A start without machineReady synthesized the machine before it answered anything.
  let ready = service.machineReady === undefined;
  void service.machineReady?.then(() => {
    ready = true;
  });
  firstStatus = (await fetch(`${service.url}/reports?profile=demo`)).status;
  readyAtFirstAnswer = ready;
  await service.machineReady;
}, 170_000);
afterAll(async () => {
  await service?.close();
});

describe('npm run serve starts at once', () => {
  it('answers before the export state machine is synthesized (it comes in the background)', () => {
    expect(firstStatus).toBe(200);
    expect(readyAtFirstAnswer).toBe(false);
  });

  it('sends a browser at its root to the portal', async () => {
    const response = await fetch(`${service.url}/`, { redirect: 'manual' });

    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/portal');
  });
});

describe('npm run serve leaves no data behind', () => {
  let taken: Server;
  let parent: string;
  const savedTmp = process.env.TMPDIR;
  beforeAll(async () => {
    taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    parent = await mkdtemp(join(tmpdir(), 'pbs-serve-parent-'));
  });
  afterAll(async () => {
    process.env.TMPDIR = savedTmp;
    if (savedTmp === undefined) delete process.env.TMPDIR;
    await new Promise((resolve) => taken.close(resolve));
    await rm(parent, { recursive: true, force: true });
  });

  it('removes its data folder when its start fails (the port is taken)', async () => {
    const port = (taken.address() as { port: number }).port;
    // The data folder is made in the system's temporary folder: here, one of the test's own.
    process.env.TMPDIR = parent;
    // A machine given: no synthesis needed for a start that fails at the API's port.
    const exportMachine = {
      definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } },
      taskArns: { plan: 'p', fetchShard: 'f', finish: 'x', fail: 'y' },
    };

    const start = startLocalService({ port, exportMachine });

    await expect(start).rejects.toThrow(/EADDRINUSE/);
    expect(await readdir(parent)).toEqual([]);
  });
});

describe('npm run serve keeps each job its own log lines', () => {
  it('puts on every log line of a task the jobId and profile of that task, with exports running at once', async () => {
    const lines: string[] = [];
    const capture = (chunk: unknown) => {
      lines.push(...String(chunk).split('\n'));
      return true;
    };
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(capture);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(capture);
    const profileOf = new Map<string, string>();
    let failing = '';
    try {
      const requests = [
        { profile: 'demo', period: '2025', formats: ['csv'] },
        { profile: 'acme', period: '2025-04', formats: ['csv'], protocols: ['Nope'] },
        { profile: 'empty', period: '2025-05', formats: ['csv'] },
      ];
      const answers = await Promise.all(
        requests.map(async (body) => {
          const response = await fetch(`${service.url}/reports`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(body),
          });
          return { profile: body.profile, jobId: ((await response.json()) as { jobId: string }).jobId };
        }),
      );
      for (const { profile, jobId } of answers) profileOf.set(jobId, profile);
      failing = answers[1]?.jobId ?? '';
      await service.starter.idle();
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
    const records = lines
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { message?: string; jobId?: string; profile?: string })
      .filter((record) => record.jobId !== undefined && profileOf.has(record.jobId));

    const mismatched = records.filter(
      (record) => record.profile !== undefined && record.profile !== profileOf.get(record.jobId ?? ''),
    );
    // The failing request's protocol is invalid: logged as a warning (`invocation failed: invalid request`).
    const failures = records.filter((record) => record.message?.startsWith('invocation failed') === true);

    expect(new Set(records.map((record) => record.jobId)).size).toBe(3);
    expect(mismatched).toEqual([]);
    expect(failures.map((record) => [record.jobId, record.profile])).toEqual([[failing, 'acme']]);
  });
});
