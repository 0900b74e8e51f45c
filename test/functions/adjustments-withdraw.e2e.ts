/**
 * Adjustments that do not fit the data, and their withdrawal, over real HTTP on loopback against
 * `npm run serve`'s stack (startLocalService: the API, the local S3 store, the simulator, the
 * export machine). An adjustment posted before the profile has any gains set cannot be checked
 * and is stored; a re-run over it fails naming it; withdrawn (DELETE, with why), the next re-run
 * succeeds, and the withdrawal stays in the document and its history. Once a gains set exists, a
 * value for a movement the service valued, or a transaction the history lacks, is refused at
 * POST (422, naming the field), and nothing is stored.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
let headers: Record<string, string>;

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  headers = { authorization: `Bearer ${await service.devToken(['demo'])}` };
}, 120_000);

afterAll(async () => {
  await service?.close();
});

/** One call of the API over HTTP: status, ETag and JSON body. */
async function api(method: string, path: string, options: { body?: unknown; ifMatch?: string } = {}) {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: {
      ...headers,
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: an API answer read by the test as JSON
  const body = (await response.json()) as any;
  return { status: response.status, etag: response.headers.get('etag'), body };
}

/** Waits until a job has ended; answers its record as the API shows it. */
async function ended(jobId: string) {
  for (;;) {
    const job = await api('GET', `/reports/${jobId}`);
    if (job.body.state === 'succeeded' || job.body.state === 'failed') return job.body;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A demo gains set of 2025 with its movements (CSV), run to its end. */
async function gainsSet(): Promise<string> {
  const started = await api('POST', '/reports', {
    body: {
      profile: 'demo',
      period: '2025',
      reports: ['gains', 'movements'],
      gains: { taxRules: 'us' },
      formats: ['csv'],
    },
  });
  expect(started.status).toBe(202);
  expect((await ended(started.body.jobId)).state).toBe('succeeded');
  return started.body.jobId;
}

/** The rows of a set's CSV file whose name ends with `suffix`, read by csv-parse. */
async function rowsOf(jobId: string, suffix: string): Promise<Record<string, string>[]> {
  const job = await api('GET', `/reports/${jobId}`);
  const file = job.body.files.find((f: { name: string }) => f.name.endsWith(suffix));
  const text = await (await fetch(file.url)).text();
  return parse(text, { bom: true, columns: true, skip_empty_lines: true });
}

const UNKNOWN = {
  id: 'value-typo',
  kind: 'value',
  txId: 'tx-that-does-not-exist',
  value: '12.50',
  why: 'from the bank statement',
};

describe('an adjustment that does not fit, withdrawn', () => {
  let setId: string;

  it('stores an adjustment it cannot check yet (no gains set), and says so', async () => {
    const stored = await api('POST', '/profiles/demo/adjustments', { body: UNKNOWN, ifMatch: '"0"' });

    expect([stored.status, stored.etag, stored.body.checkedAgainst]).toEqual([201, '"1"', null]);
  });

  it('a set re-run over it fails, naming it', async () => {
    setId = await gainsSet();
    const rerun = await api('POST', `/reports/${setId}/rerun`);
    expect(rerun.status).toBe(202);

    const job = await ended(rerun.body.jobId);

    expect(job.state).toBe('failed');
    expect(job.reason).toContain('value-typo');
    expect(job.reason).toContain('tx-that-does-not-exist');
  }, 300_000);

  it('refuses, once a gains set exists, a transaction its history lacks (422 txId), and stores nothing', async () => {
    const refused = await api('POST', '/profiles/demo/adjustments', {
      body: { ...UNKNOWN, id: 'another-typo', txId: 'tx-also-missing' },
      ifMatch: '"1"',
    });

    expect([refused.status, refused.body.error.code, refused.body.error.field]).toEqual([
      422,
      'adjustment_refused',
      'txId',
    ]);
    expect(refused.body.error.message).toContain('tx-also-missing');
    expect(refused.body.error.message).toContain(setId);
    expect((await api('GET', '/profiles/demo/adjustments')).body.version).toBe(1);
  });

  it("checks against the set's snapshot as it streams from the bucket: with no temp folder to write to, still 422", async () => {
    const saved = process.env.TMPDIR;
    // The API's process (in this one) gets a temp folder that does not exist: nothing can go to disk.
    process.env.TMPDIR = join(tmpdir(), 'pbs-no-such-folder', 'tmp');
    try {
      const refused = await api('POST', '/profiles/demo/adjustments', {
        body: { ...UNKNOWN, id: 'third-typo', txId: 'tx-missing-too' },
        ifMatch: '"1"',
      });

      expect([refused.status, refused.body.error.field]).toEqual([422, 'txId']);
      expect(refused.body.error.message).toContain('tx-missing-too');
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });

  it('refuses a value for a movement the service valued (422 token), and stores nothing', async () => {
    // The CSV's header row holds the column keys (transaction_id, token, value).
    const valued = (await rowsOf(setId, '_movements.csv')).find(
      (row) => (row.value ?? '') !== '' && !['USD', 'EUR'].includes(row.token ?? ''),
    );
    expect(valued).toBeDefined();

    const refused = await api('POST', '/profiles/demo/adjustments', {
      body: {
        kind: 'value',
        txId: valued?.transaction_id,
        token: valued?.token,
        value: '1.00',
        why: 'a guess',
      },
      ifMatch: '"1"',
    });

    expect([refused.status, refused.body.error.field]).toEqual([422, 'token']);
    expect(refused.body.error.message).toContain('has a value from the service');
    expect((await api('GET', '/profiles/demo/adjustments')).body.version).toBe(1);
  });

  it('takes a value for a movement without one, checked against the set', async () => {
    const warnings = await api('GET', `/reports/${setId}/warnings`);
    const missing = warnings.body.warnings.find(
      (w: { kind: string; token: string }) => w.kind === 'missing-value' && w.token === 'USDC',
    );

    const stored = await api('POST', '/profiles/demo/adjustments', {
      body: {
        kind: 'value',
        txId: missing.transactionId,
        token: 'USDC',
        value: '1250.00',
        why: 'at the peg',
      },
      ifMatch: '"1"',
    });

    expect([stored.status, stored.body.checkedAgainst]).toEqual([201, { jobId: setId, period: '2025' }]);
  });

  it('withdraws the adjustment that does not fit: a new version, the withdrawal kept with who, when and why', async () => {
    const withdrawn = await api('DELETE', '/profiles/demo/adjustments/value-typo?why=typed+the+wrong+id', {
      ifMatch: '"2"',
    });

    expect([withdrawn.status, withdrawn.etag]).toEqual([200, '"3"']);
    expect(withdrawn.body.withdrawn).toMatchObject({
      adjustment: UNKNOWN,
      by: 'developer',
      why: 'typed the wrong id',
    });
    const read = await api('GET', '/profiles/demo/adjustments');
    expect(read.body.adjustments.map((a: { id: string }) => a.id)).toEqual(['manual-v2']);
    expect(read.body.withdrawn.map((w: { adjustment: { id: string } }) => w.adjustment.id)).toEqual([
      'value-typo',
    ]);
    expect(read.body.history[0]).toMatchObject({
      version: 3,
      removed: ['value-typo'],
      withdrawn: [{ id: 'value-typo', kind: 'value', by: 'developer', why: 'typed the wrong id' }],
    });
    // The version that held it is kept as it was.
    expect(read.body.history.at(-1)).toMatchObject({ version: 1, added: [{ id: 'value-typo' }] });
  });

  it('refuses to withdraw it again, or to reuse its id, or without a why', async () => {
    const again = await api('DELETE', '/profiles/demo/adjustments/value-typo?why=again', { ifMatch: '"3"' });
    const reused = await api('POST', '/profiles/demo/adjustments', { body: UNKNOWN, ifMatch: '"3"' });
    const noWhy = await api('DELETE', '/profiles/demo/adjustments/manual-v2', { ifMatch: '"3"' });

    expect([again.status, again.body.error.field]).toEqual([404, 'id']);
    expect(again.body.error.message).toContain('was withdrawn already, by developer');
    expect([reused.status, reused.body.error.field]).toEqual([409, 'id']);
    expect([noWhy.status, noWhy.body.error.field]).toEqual([400, 'why']);
  });

  it('a re-run after the withdrawal succeeds', async () => {
    const rerun = await api('POST', `/reports/${setId}/rerun`);

    expect(rerun.body.adjustments.version).toBe(3);
    expect((await ended(rerun.body.jobId)).state).toBe('succeeded');
  }, 300_000);
});
