import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAllItems, type QueryPairs, signedGet, signedJson } from '../../test/support/simulator.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile } from './types.ts';

interface Tx {
  id: string;
  date: string;
  category: string;
  subType?: string;
  protocol: string | null;
  hash: string;
  movements: { symbol: string }[];
  value: { amount: string | null };
  fee: { amount: string };
}

const demo = DEFAULT_PROFILES[0] as SimulatedProfile;
const byId = (a: Tx, b: Tx): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const ids = (txs: Tx[]): string[] => txs.map((t) => t.id);
/** The sort key of a value: a missing value (the demo's planted ones) sorts as zero. */
const valueKey = (t: Tx): Big => new Big(t.value.amount ?? 0);

describe('simulator transaction search', () => {
  let sim: RunningSimulator;
  let all: Tx[];

  const search = async (query: QueryPairs): Promise<Tx[]> =>
    (await fetchAllItems(sim.url, demo, '/v2/transactions', [
      ...query,
      ['pageSize', '1000'],
    ])) as unknown as Tx[];

  beforeAll(async () => {
    sim = await startSimulator({ rateLimitPerSecond: 0 });
    all = await search([]);
  });
  afterAll(() => sim.close());

  it('returns every non-deleted transaction in date then id order by default', () => {
    const sorted = [...all].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : byId(a, b)));
    expect(all.length).toBeGreaterThan(2_800);
    expect(ids(all)).toEqual(ids(sorted));
  });

  it('returns subType on every transaction', () => {
    expect(all.every((t) => typeof t.subType === 'string' && t.subType !== '')).toBe(true);
  });

  it('returns only transactions with a movement in the token for one t', async () => {
    const result = await search([['t', 'SOL']]);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.movements.some((m) => m.symbol === 'SOL'))));
  });

  it('returns transactions with any of the tokens for a repeated t', async () => {
    const result = await search([
      ['t', 'BTC'],
      ['t', 'DAI'],
    ]);
    const expected = all.filter((t) => t.movements.some((m) => m.symbol === 'BTC' || m.symbol === 'DAI'));
    expect(ids(result)).toEqual(ids(expected));
  });

  it('returns only the category for cf', async () => {
    const result = await search([['cf', 'staking']]);
    expect(result.length).toBeGreaterThan(0);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.category === 'staking')));
  });

  it('returns only the protocol for p', async () => {
    const result = await search([['p', 'Aave V3']]);
    expect(result.length).toBeGreaterThan(0);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.protocol === 'Aave V3')));
  });

  it('returns every row sharing the hash for h', async () => {
    const counts = new Map<string, number>();
    for (const t of all) counts.set(t.hash, (counts.get(t.hash) ?? 0) + 1);
    const shared = [...counts].find(([, n]) => n > 1)?.[0] as string;
    const result = await search([['h', shared]]);
    expect(result.length).toBeGreaterThan(1);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.hash === shared)));
  });

  it('returns one date for all rows that share a hash, but for the one move planted days apart', () => {
    const rows = new Map<string, Tx[]>();
    for (const t of all) rows.set(t.hash, [...(rows.get(t.hash) ?? []), t]);
    const shared = [...rows.values()].filter((r) => r.length > 1);
    expect(shared.length).toBeGreaterThan(0);
    const apart = shared.filter((r) => !r.every((t) => t.date === r[0]?.date));
    // The demo story's late side of a move between own accounts (lib/simulator/story.ts).
    expect(apart).toHaveLength(1);
    const [first, second] = (apart[0] ?? []).map((t) => Date.parse(t.date));
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThan(24 * 3_600_000);
  });

  it('ignores t, cf, p and the date window when h is given', async () => {
    const target = all[all.length - 1] as Tx;
    const result = await search([
      ['h', target.hash],
      ['t', 'NOPE'],
      ['cf', 'no-such-category'],
      ['p', 'No Protocol'],
      ['startDate', '2000-01-01T00:00:00.000Z'],
      ['endDate', '2000-01-02T00:00:00.000Z'],
    ]);
    expect(ids(result)).toContain(target.id);
  });

  it('returns value ascending with exact decimal comparison and id ties', async () => {
    const result = await search([['sort', 'value']]);
    const expected = [...all].sort((a, b) => valueKey(a).cmp(valueKey(b)) || byId(a, b));
    expect(ids(result)).toEqual(ids(expected));
  });

  it('returns value descending with ties still by id ascending', async () => {
    const result = await search([
      ['sort', 'value'],
      ['order', 'desc'],
    ]);
    const expected = [...all].sort((a, b) => valueKey(b).cmp(valueKey(a)) || byId(a, b));
    expect(ids(result)).toEqual(ids(expected));
  });

  it('returns fee ascending with exact decimal comparison', async () => {
    const result = await search([['sort', 'fee']]);
    const expected = [...all].sort((a, b) => new Big(a.fee.amount).cmp(b.fee.amount) || byId(a, b));
    expect(ids(result)).toEqual(ids(expected));
  });

  it('returns fee descending', async () => {
    const result = await search([
      ['sort', 'fee'],
      ['order', 'desc'],
    ]);
    const expected = [...all].sort((a, b) => new Big(b.fee.amount).cmp(a.fee.amount) || byId(a, b));
    expect(ids(result)).toEqual(ids(expected));
  });

  it('returns date descending for order=desc with ties by id ascending', async () => {
    const result = await search([['order', 'desc']]);
    const expected = [...all].sort((a, b) => (a.date > b.date ? -1 : a.date < b.date ? 1 : byId(a, b)));
    expect(new Set(all.map((t) => t.date)).size).toBeLessThan(all.length);
    expect(ids(result)).toEqual(ids(expected));
  });

  it('includes a transaction dated exactly at startDate and excludes one dated exactly at endDate', async () => {
    const first = all[100] as Tx;
    const last = all[200] as Tx;
    const result = await search([
      ['startDate', first.date],
      ['endDate', last.date],
    ]);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.date >= first.date && t.date < last.date)));
    expect(result[0]?.id).toBe(first.id);
    expect(ids(result)).not.toContain(last.id);
  });

  it('returns 400 naming sort for an unknown sort key', async () => {
    const response = await signedGet(sim.url, demo, '/v2/transactions', { query: [['sort', 'amount']] });
    const body = (await response.json()) as { error: { message: string } };
    expect(response.status).toBe(400);
    expect(body.error.message).toMatch(/^sort/);
  });

  it('returns 400 naming order for an unknown order', async () => {
    const response = await signedGet(sim.url, demo, '/v2/transactions', { query: [['order', 'up']] });
    const body = (await response.json()) as { error: { message: string } };
    expect([response.status, body.error.message.split(':')[0]]).toEqual([400, 'order']);
  });

  it('returns 400 naming t for an empty t value', async () => {
    const response = await signedGet(sim.url, demo, '/v2/transactions', { query: [['t', '']] });
    const body = (await response.json()) as { error: { message: string } };
    expect([response.status, body.error.message.split(':')[0]]).toEqual([400, 't']);
  });

  it('returns 400 naming startDate for a malformed instant', async () => {
    const response = await signedGet(sim.url, demo, '/v2/transactions', {
      query: [['startDate', '2025-13-01']],
    });
    const body = (await response.json()) as { error: { message: string } };
    expect([response.status, body.error.message.split(':')[0]]).toEqual([400, 'startDate']);
  });

  it('returns an empty page for a window without transactions', async () => {
    const body = (await signedJson(sim.url, demo, '/v2/transactions', {
      query: [
        ['startDate', '2020-01-01T00:00:00.000Z'],
        ['endDate', '2020-02-01T00:00:00.000Z'],
      ],
    })) as { items: unknown[]; totalItems: number };
    expect([body.items.length, body.totalItems]).toEqual([0, 0]);
  });
});

describe('simulator date window formats', () => {
  let isoDate: RunningSimulator;
  let epoch: RunningSimulator;
  let all: Tx[];

  beforeAll(async () => {
    isoDate = await startSimulator({ rateLimitPerSecond: 0, shape: { window: { dateFormat: 'iso-date' } } });
    epoch = await startSimulator({
      rateLimitPerSecond: 0,
      shape: { window: { dateFormat: 'epoch-millis', startParam: 'from', endParam: 'to' } },
    });
    all = (await fetchAllItems(isoDate.url, demo, '/v2/transactions', [
      ['pageSize', '1000'],
    ])) as unknown as Tx[];
  });
  afterAll(async () => {
    await isoDate.close();
    await epoch.close();
  });

  it('treats an iso-date endDate as an inclusive whole UTC day', async () => {
    const day = (all[500] as Tx).date.slice(0, 10);
    const result = (await fetchAllItems(isoDate.url, demo, '/v2/transactions', [
      ['startDate', day],
      ['endDate', day],
    ])) as unknown as Tx[];
    expect(result.length).toBeGreaterThan(0);
    expect(ids(result)).toEqual(ids(all.filter((t) => t.date.slice(0, 10) === day)));
  });

  it('returns 400 naming startDate for an instant where an iso-date is configured', async () => {
    const response = await signedGet(isoDate.url, demo, '/v2/transactions', {
      query: [['startDate', '2025-01-01T00:00:00.000Z']],
    });
    expect(response.status).toBe(400);
  });

  it('reads epoch-millis bounds from the configured parameter names, start inclusive and end exclusive', async () => {
    const first = all[10] as Tx;
    const last = all[20] as Tx;
    const result = (await fetchAllItems(epoch.url, demo, '/v2/transactions', [
      ['from', String(Date.parse(first.date))],
      ['to', String(Date.parse(last.date))],
    ])) as unknown as Tx[];
    expect(ids(result)).toEqual(ids(all.filter((t) => t.date >= first.date && t.date < last.date)));
  });
});
