import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { synthesizeExportMachine } from '../../infra/definitions.ts';
import { type LocalApiServer, startLocalApiServer } from '../../lib/http-api/index.ts';
import {
  createApiFetch,
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import { createStateMachineStarter, LOCAL_MACHINE_CONFIG, type LocalStarter } from '../../lib/local/index.ts';
import { startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
let api: LocalApiServer;
let starter: LocalStarter;
const done: [string, string][] = [];
beforeAll(async () => {
  h = await startWorkflowHarness();
  const context = h.workerContext();
  starter = createStateMachineStarter(
    synthesizeExportMachine(LOCAL_MACHINE_CONFIG),
    {
      plan: createPlanHandler(context),
      fetchShard: createFetchShardHandler(context),
      finish: createFinishHandler(context),
      fail: createFailHandler(context),
    },
    { onDone: (jobId, state) => done.push([jobId, state]) },
  );
  // Built on the first request, when the server's URL (a free port) is known.
  api = await startLocalApiServer(createApiFetch(() => h.apiContext({ starter, publicBaseUrl: api.url })));
});
afterAll(async () => {
  await api.close();
  await starter.idle();
  await h.close();
});

async function postReport(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('local serve (@hono/node-server and the synthesized state machine run locally)', () => {
  it('answers 202 with a status URL on the local server', async () => {
    const { status, body } = await postReport({ profile: 'acme', period: '2025-11', formats: ['csv'] });

    expect(status).toBe(202);
    expect(body.statusUrl).toBe(`${api.url}/reports/${body.jobId}`);
  });

  it('runs the export to succeeded and serves links that download from the local store', async () => {
    const { body: created } = await postReport({ profile: 'acme', period: '2025-12', formats: ['csv'] });
    await starter.idle();

    const job = (await (await fetch(String(created.statusUrl))).json()) as {
      state: string;
      files: { name: string; url: string; sha256: string }[];
    };
    const file = job.files.find((candidate) => candidate.name.endsWith('_transactions.csv'));
    const download = await fetch(file?.url ?? '');

    expect(job.state).toBe('succeeded');
    expect(
      createHash('sha256')
        .update(Buffer.from(await download.arrayBuffer()))
        .digest('hex'),
    ).toBe(file?.sha256);
  });

  it('runs the fail task when the export fails', async () => {
    const { body: created } = await postReport({ profile: 'acme', period: '2025-09', protocols: ['Nope'] });
    await starter.idle();

    const job = (await (await fetch(String(created.statusUrl))).json()) as { state: string; reason: string };

    expect(job).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^ValidationError: protocols: unknown protocol "Nope"/),
    });
    expect(done).toContainEqual([created.jobId, 'failed']);
  });

  it('passes the query string through to the list route', async () => {
    const response = await fetch(`${api.url}/reports?profile=acme&limit=101`);

    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { field: string } }).error.field).toBe('limit');
  });

  it('answers 404 for an unknown route', async () => {
    expect((await fetch(`${api.url}/nothing`)).status).toBe(404);
  });
});
