/**
 * Months that chain in their balances on the AWS path (issue 42, item 3): the local stack as
 * `npm run serve` runs it (the state machine's tasks, the finish publishing to s3rver, the HTTP API
 * on loopback). January exported and closed through `POST /closes`, February's finish checks its
 * opening balances against January's closing ones in the bucket (continues); once the simulator
 * leaves a January transaction out of its listings, February's finish records the break with both
 * exact figures, and the API's verification says it. Expected figures come from the simulator's
 * own data, computed here.
 */
import { createHash } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { balancesBefore, changesOf, type DemoTx, demoTransactions } from '../support/demo-balances.ts';

const FEB_1 = '2025-02-01T00:00:00.000Z';
let service: LocalService;
let s3: S3Client;
let token: string;

/** Exports `period` through the API (a new job each time: its own `Idempotency-Key`). */
async function exportMonth(period: string, attempt = 1): Promise<JobRecord> {
  const started = await fetch(`${service.url}/reports`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${token}`,
      'idempotency-key': `opening-chain-${period}-${attempt}`,
    },
    body: JSON.stringify({
      profile: 'demo',
      period,
      reports: ['transactions', 'gains'],
      formats: ['csv'],
      gains: { taxRules: 'us' },
    }),
  });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  await service.starter.idle();
  const stored = await service.jobs.get(jobId);
  expect(stored?.state, JSON.stringify(stored)).toBe('succeeded');
  return stored as JobRecord;
}

/** The bytes of `key` in the local bucket. */
async function object(key: string): Promise<Buffer> {
  const got = await s3.send(new GetObjectCommand({ Bucket: service.bucket, Key: key }));
  return Buffer.from(
    await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

const resultOf = (job: JobRecord) => job.result as NonNullable<JobRecord['result']>;
// biome-ignore lint/suspicious/noExplicitAny: the manifest as JSON, read field by field
const manifestOf = async (job: JobRecord): Promise<any> =>
  JSON.parse((await object(`${resultOf(job).prefix}/manifest.json`)).toString('utf8'));

let january: JobRecord;
let february: JobRecord;

/** `GET path` on the stack with the test's bearer token: the answer's body as text. */
async function get(path: string): Promise<string> {
  const answer = await fetch(`${service.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.status, path).toBe(200);
  return answer.text();
}

/** The practice view's "Opening balances" cell of each month of demo, as text without tags. */
async function openingCells(): Promise<Record<string, string>> {
  const html = await get('/portal/view/practice');
  return Object.fromEntries(
    [...html.matchAll(/<tr id="practice-demo-([^"]+)">(.*?)<\/tr>/g)].map((match) => {
      const cell = /<td[^>]*data-label="Opening balances"[^>]*>(.*?)<\/td>/.exec(match[2] ?? '')?.[1] ?? '';
      return [match[1], cell.replace(/<[^>]+>/g, '').trim()];
    }),
  );
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  token = await service.devToken(['demo']);
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: service.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  january = await exportMonth('2025-01');
  const closed = await fetch(`${service.url}/closes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({
      profile: 'demo',
      period: '2025-01',
      runId: resultOf(january).runId,
      reason: 'January booked',
    }),
  });
  expect(closed.status, await closed.clone().text()).toBe(201);
  february = await exportMonth('2025-02');
}, 300_000);
afterAll(async () => {
  s3?.destroy();
  // A stack holding a closed set keeps its data folder when it stops: removed here.
  await service?.close();
  if (service) await rm(service.s3Dir, { recursive: true, force: true });
});

describe('opening balances on the AWS path (the finish, S3 close records and sets)', () => {
  it("continues the closed January: the finish recorded it in February's manifest", async () => {
    const januaryBytes = await object(`${resultOf(january).prefix}/manifest.json`);
    const opening = (await manifestOf(february)).reconciliation.opening;
    expect(opening).toMatchObject({
      status: 'continues',
      periodStart: FEB_1,
      breaks: [],
      previousSet: {
        prefix: resultOf(january).prefix,
        runId: resultOf(january).runId,
        manifestSha256: createHash('sha256').update(januaryBytes).digest('hex'),
      },
    });
  });

  it('carries the opening check in the job the API returns, and the practice view says it per month', async () => {
    const manifest = await manifestOf(february);
    const answer = JSON.parse(await get(`/reports/${february.jobId}`));
    expect(answer.reconciliation).toEqual({
      status: manifest.reconciliation.status,
      note: manifest.reconciliation.note,
      opening: { status: 'continues', note: manifest.reconciliation.opening.note, previousPeriod: '2025-01' },
    });
    // The notes say their instants as days in the period's zone; the manifest keeps the instants.
    expect(answer.reconciliation.note).toMatch(/ledger balances at the end of 2025-02-28 \(UTC\) equal/);
    expect(answer.reconciliation.opening.note).toMatch(
      /^opening balances continue the closed 2025-01 \(run \S+\): \d+ ledger balances at the start of 2025-02-01 \(UTC\) equal/,
    );
    expect(manifest.reconciliation.periodEnd).toBe('2025-03-01T00:00:00.000Z');
    const first = JSON.parse(await get(`/reports/${january.jobId}`));
    expect(first.reconciliation.opening).toEqual({
      status: 'no-closed-previous',
      note: 'opening balances not checked: no closed period of demo ends at the start of 2025-01-01 (UTC), where 2025-01 begins',
    });
    expect(await openingCells()).toEqual({
      '2025-02': '✓ opening continues 2025-01',
      '2025-01':
        'opening not checked — no closed period of demo ends at the start of 2025-01-01 (UTC), where 2025-01 begins',
    });
  });

  it('records the break with both exact figures once January changes at the service, and the verification says it', async () => {
    const txs = demoTransactions();
    const hidden = txs.find(
      (tx) => tx.date.startsWith('2025-01') && changesOf(tx).size === 1 && tx.movements.length === 1,
    ) as DemoTx;
    const [[symbol, change]] = [...changesOf(hidden)] as [[string, Big]];
    const closing = balancesBefore(txs, FEB_1).get(`${hidden.ledgerId}|${symbol}`) as Big;
    service.simulator.setBalanceFaults({ hide: [{ profile: 'demo', id: hidden.id }] });
    const again = await exportMonth('2025-02', 2);
    const opening = (await manifestOf(again)).reconciliation.opening;
    expect(opening.status).toBe('break');
    expect(opening.previousSet.runId).toBe(resultOf(january).runId);
    expect(opening.breaks).toHaveLength(1);
    const [only] = opening.breaks;
    expect([only.ledgerId, only.symbol]).toEqual([hidden.ledgerId, symbol]);
    expect(new Big(only.previousClosing).eq(closing)).toBe(true);
    expect(new Big(only.opening).eq(closing.minus(change))).toBe(true);
    expect(new Big(only.difference).eq(change.times(-1))).toBe(true);
    const answer = await fetch(`${service.url}/reports/${again.jobId}/verification`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const verdict = (await answer.json()) as {
      holds: boolean;
      sets: { findings: { holds: boolean; text: string }[] }[];
    };
    expect((await openingCells())['2025-02']).toMatch(
      /^✗ opening break with 2025-01 — 1 of \d+ ledger balances at the start of 2025-02-01 \(UTC\) differ from the closing balances of the closed 2025-01/,
    );
    expect(verdict.holds).toBe(false);
    const failed = verdict.sets[0]?.findings.filter((f) => !f.holds).map((f) => f.text);
    expect(failed).toEqual([
      `balances break: ledger ${hidden.ledgerId}, token ${symbol} opens at the start of 2025-02-01 (UTC) with ${closing.minus(change).toFixed()}, ` +
        `but the previous set ${resultOf(january).prefix} (2025-01) closed with ${closing.toFixed()} (difference ${change.times(-1).toFixed()})`,
    ]);
  }, 300_000);
});
