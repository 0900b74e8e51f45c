import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { parseExportRequest } from '../plan/index.ts';
import { createReportModel } from '../report/index.ts';
import type { SnapshotRecord } from '../snapshot/index.ts';
import { reconcileStep } from './step.ts';

const FIELDS = DEFAULT_SHAPE.fields;
/** January 2025 in UTC ends here. */
const END_MS = Date.parse('2025-02-01T00:00:00.000Z');
const START_MS = Date.parse('2025-01-01T00:00:00.000Z');
/** No snapshot is there: a step that reads one fails. */
const NO_SNAPSHOT = join(import.meta.dirname, 'no-such-snapshot.ndjson.gz');

const record = (id: string, date: string, amount: string): SnapshotRecord =>
  ({
    kind: 'transaction',
    shard: '0',
    data: {
      id,
      date,
      category: 'transfer',
      ledgerId: 'led_a',
      movements: [{ symbol: 'ETH', amount }],
      fee: { symbol: null, quantity: null },
    },
  }) as unknown as SnapshotRecord;

const service = {
  reportedBalances: async () => [{ ledgerId: 'led_a', symbol: 'ETH', amount: '3', asOfMs: END_MS }],
  async *transactionPages() {},
};

const input = {
  reports: ['journal'],
  snapshotFile: NO_SNAPSHOT,
  fields: FIELDS,
  periodStartMs: START_MS,
  periodEndMs: END_MS,
  timeZone: 'UTC',
};

describe('the reconciliation reads no snapshot when the run tallied its balances', () => {
  it("takes the balances the assembly's report model tallied as it observed the records", async () => {
    const request = parseExportRequest({
      profile: 'demo',
      period: '2025-01',
      timeZone: 'UTC',
      reports: ['movements'],
    });
    const model = createReportModel(
      FIELDS,
      { ...request, reports: ['movements', 'journal'] },
      {
        now: () => new Date('2025-03-01T00:00:00Z'),
      },
    );
    // Before the period's start: in the opening and the closing balance.
    model.observe(record('t0', '2024-12-31T23:00:00Z', '1'));
    model.observe(record('t1', '2025-01-05T10:00:00Z', '2.5'));
    model.observe(record('t2', '2025-01-31T23:59:59Z', '0.25'));
    // After the period's end: not in the balance at its end.
    model.observe(record('t3', '2025-02-01T00:00:00Z', '9'));

    const result = await reconcileStep({
      ...input,
      startedAtMs: Date.parse('2025-03-01T00:00:00Z'),
      service,
      tallied: model.reconciliationBalances?.() ?? null,
    });

    // 1 + 2.5 + 0.25 before the end; the service reports 3: a difference of -0.75 (reported less
    // computed). The opening holds only what came before the period's start.
    expect(result?.record).toMatchObject({
      status: 'differences',
      openingBalances: [{ ledgerId: 'led_a', symbol: 'ETH', amount: '1' }],
      closingBalances: [{ ledgerId: 'led_a', symbol: 'ETH', amount: '3.75' }],
      differences: [{ ledgerId: 'led_a', symbol: 'ETH', computed: '3.75', difference: '-0.75' }],
    });
  });

  it('reads the snapshot when the tally is at another instant (a period not over when the run started)', async () => {
    const none = () => ({ transactions: 0, unreadableAmounts: 0, withoutLedger: 0 });
    const tallied = {
      instants: [START_MS, END_MS],
      balances: [new Map(), new Map()],
      counts: [none(), none()],
    };
    const started = END_MS - 86_400_000;

    await expect(reconcileStep({ ...input, startedAtMs: started, service, tallied })).rejects.toThrow(
      /ENOENT|no-such-snapshot/,
    );
  });
});
