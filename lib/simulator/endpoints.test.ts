import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAllItems, signedJson } from '../../test/support/simulator.ts';
import { HOSTILE_AMOUNTS, HOSTILE_EXTRA_KEYS } from './data.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile } from './types.ts';

type Item = Record<string, unknown> & {
  id: string;
  date: string;
  lastModifiedDate: string;
  ledgerId: string;
  protocol: string | null;
};

const demo = DEFAULT_PROFILES[0] as SimulatedProfile;
const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
const empty = DEFAULT_PROFILES[2] as SimulatedProfile;
const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const EPOCH = '1970-01-01T00:00:00.000Z';

describe('simulator endpoints', () => {
  let sim: RunningSimulator;
  let all: Item[];
  let changed: Item[];

  beforeAll(async () => {
    sim = await startSimulator({ rateLimitPerSecond: 0 });
    all = (await fetchAllItems(sim.url, acme, '/v2/transactions')) as Item[];
    changed = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline', [
      ['lastModifiedDate', EPOCH],
    ])) as Item[];
  });
  afterAll(() => sim.close());

  it('returns accounts as {id, name, type}', async () => {
    const accounts = await fetchAllItems(sim.url, acme, '/v2/accounts');
    expect(accounts.length).toBeGreaterThan(0);
    for (const account of accounts) expect(Object.keys(account)).toEqual(['id', 'name', 'type']);
  });

  it('returns ledgers with an account id and a source GUID', async () => {
    const accounts = new Set((await fetchAllItems(sim.url, acme, '/v2/accounts')).map((a) => a.id));
    const ledgers = (await fetchAllItems(sim.url, acme, '/v2/ledgers')) as {
      accountId: string;
      source: { sourceGuid: string; name: string };
    }[];
    expect(ledgers.every((l) => accounts.has(l.accountId) && GUID.test(l.source.sourceGuid))).toBe(true);
  });

  it('returns date-bounds equal to the first and last non-deleted transaction dates', async () => {
    const bounds = await signedJson(sim.url, acme, '/v2/transactions/date-bounds');
    expect(bounds).toEqual({ earliestDate: all[0]?.date, latestDate: all[all.length - 1]?.date });
  });

  it('returns metadata listing the distinct protocols of the portfolio, sorted', async () => {
    const metadata = await signedJson(sim.url, acme, '/v2/transactions/metadata');
    const protocols = [...new Set(all.map((t) => t.protocol).filter((p) => p !== null))].sort();
    expect(metadata).toEqual({ defiProtocols: protocols });
  });

  it('returns null date-bounds for the empty profile', async () => {
    expect(await signedJson(sim.url, empty, '/v2/transactions/date-bounds')).toEqual({
      earliestDate: null,
      latestDate: null,
    });
  });

  it('returns no protocols for the empty profile', async () => {
    expect(await signedJson(sim.url, empty, '/v2/transactions/metadata')).toEqual({ defiProtocols: [] });
  });

  it('returns an empty first page with zero totals for the empty profile', async () => {
    expect(await signedJson(sim.url, empty, '/v2/transactions')).toEqual({
      items: [],
      page: 1,
      pageSize: 500,
      totalItems: 0,
      totalPages: 0,
    });
  });

  it('returns amounts as decimal strings', () => {
    const tx = all[0] as unknown as {
      movements: { amount: string; value: string }[];
      value: { amount: string };
    };
    const decimal = /^-?\d+(\.\d{1,18})?$/;
    expect(
      [tx.value.amount, ...tx.movements.flatMap((m) => [m.amount, m.value])].every((a) => decimal.test(a)),
    ).toBe(true);
  });

  it('returns an extra memo field on some transactions', () => {
    expect(all.some((t) => typeof t.memo === 'string')).toBe(true);
  });

  it('returns the timeline without lastModifiedDate as the non-deleted transactions plus their source', async () => {
    const timeline = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline')) as Item[];
    const ledgers = await fetchAllItems(sim.url, acme, '/v2/ledgers');
    const sourceOf = new Map(ledgers.map((l) => [l.id, l.source]));
    expect(timeline.map(({ source, ...tx }) => tx)).toEqual(all);
    expect(timeline.every((t) => JSON.stringify(t.source) === JSON.stringify(sourceOf.get(t.ledgerId)))).toBe(
      true,
    );
  });

  it('returns deleted transactions with deleted true when lastModifiedDate is given', () => {
    const deleted = changed.filter((t) => t.deleted === true);
    expect(deleted.length).toBeGreaterThan(0);
    expect(changed.length).toBe(all.length + deleted.length);
  });

  it('never returns a deleted transaction from the search', () => {
    const live = new Set(all.map((t) => t.id));
    expect(changed.filter((t) => t.deleted === true).some((t) => live.has(t.id))).toBe(false);
  });

  it('returns only transactions modified at or after lastModifiedDate', async () => {
    const since = '2025-06-01T00:00:00.000Z';
    const recent = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline', [
      ['lastModifiedDate', since],
    ])) as Item[];
    expect(recent.map((t) => t.id)).toEqual(
      changed.filter((t) => t.lastModifiedDate >= since).map((t) => t.id),
    );
  });

  it('returns edited transactions whose lastModifiedDate is days after their date', () => {
    const dayMs = 86_400_000;
    expect(all.some((t) => Date.parse(t.lastModifiedDate) - Date.parse(t.date) > dayMs)).toBe(true);
  });
});

describe('simulator wire shape alternatives', () => {
  it('relocates transaction fields to the configured mapping paths and keeps unknown fields', async () => {
    const sim = await startSimulator({
      rateLimitPerSecond: 0,
      shape: {
        fields: { id: 'txId', date: 'timestamp', valueAmount: 'amounts.usd', movementSymbol: 'asset' },
      },
    });
    try {
      const body = (await signedJson(sim.url, acme, '/v2/transactions', { query: [['pageSize', '1']] })) as {
        items: Record<string, unknown>[];
      };
      const tx = body.items[0] as Record<string, unknown> & {
        movements: Record<string, unknown>[];
        amounts: { usd: string };
      };
      expect([typeof tx.txId, typeof tx.timestamp, typeof tx.amounts.usd, 'id' in tx, 'date' in tx]).toEqual([
        'string',
        'string',
        'string',
        false,
        false,
      ]);
      expect([tx.value, typeof tx.movements[0]?.asset, 'symbol' in (tx.movements[0] ?? {})]).toEqual([
        { currency: 'USD' },
        'string',
        false,
      ]);
    } finally {
      await sim.close();
    }
  });

  it('serves the timeline at the configured path with epoch-millis lastModifiedDate', async () => {
    const sim = await startSimulator({
      rateLimitPerSecond: 0,
      shape: { timeline: { path: '/v2/timeline', lastModifiedDateFormat: 'epoch-millis' } },
    });
    try {
      const since = Date.parse('2025-06-01T00:00:00.000Z');
      const items = (await fetchAllItems(sim.url, acme, '/v2/timeline', [
        ['lastModifiedDate', String(since)],
      ])) as Item[];
      expect(items.length).toBeGreaterThan(0);
      expect(items.every((t) => Date.parse(t.lastModifiedDate) >= since)).toBe(true);
    } finally {
      await sim.close();
    }
  });

  it('returns metadata as a bare array and date-bounds under other names when configured', async () => {
    const sim = await startSimulator({
      rateLimitPerSecond: 0,
      shape: {
        metadata: { protocolsPath: null },
        dateBounds: { earliestPath: 'range.min', latestPath: 'range.max' },
      },
    });
    try {
      const metadata = await signedJson(sim.url, acme, '/v2/transactions/metadata');
      const bounds = (await signedJson(sim.url, acme, '/v2/transactions/date-bounds')) as Record<
        string,
        unknown
      >;
      expect([Array.isArray(metadata), Object.keys(bounds.range as object)]).toEqual([true, ['min', 'max']]);
    } finally {
      await sim.close();
    }
  });
});

describe('simulator data generation', () => {
  it('returns identical data for the same seed', async () => {
    const a = await startSimulator({ seed: 7, rateLimitPerSecond: 0 });
    const b = await startSimulator({ seed: 7, rateLimitPerSecond: 0 });
    try {
      const query = { query: [['page', '3'] as [string, string]] };
      expect(await signedJson(a.url, demo, '/v2/transactions', query)).toEqual(
        await signedJson(b.url, demo, '/v2/transactions', query),
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('returns different data for a different seed', async () => {
    const a = await startSimulator({ seed: 7, rateLimitPerSecond: 0 });
    const b = await startSimulator({ seed: 8, rateLimitPerSecond: 0 });
    try {
      expect(await signedJson(a.url, acme, '/v2/transactions')).not.toEqual(
        await signedJson(b.url, acme, '/v2/transactions'),
      );
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('serves a page of a 1 000 000-transaction profile without materialising the transactions', async () => {
    const big: SimulatedProfile = { ...demo, name: 'big', transactions: 1_000_000 };
    const sim = await startSimulator({ profiles: [big], rateLimitPerSecond: 0 });
    try {
      const before = process.memoryUsage().heapUsed;
      const body = (await signedJson(sim.url, big, '/v2/transactions', {
        query: [
          ['page', '1500'],
          ['pageSize', '500'],
        ],
      })) as { items: unknown[]; totalItems: number };
      const growth = process.memoryUsage().heapUsed - before;
      expect(body.items.length).toBe(500);
      expect(body.totalItems).toBeGreaterThan(950_000);
      // A million materialised transactions would take several hundred MB of heap.
      expect(growth).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await sim.close();
    }
  });
});

describe('simulator hostile profile', () => {
  it('serves hostile text, amounts and extra keys, the same for the same seed, over the same dates as its filters', async () => {
    const sim = await startSimulator({ profiles: [{ ...HOSTILE_PROFILE }], rateLimitPerSecond: 0 });
    const again = await startSimulator({ profiles: [{ ...HOSTILE_PROFILE }], rateLimitPerSecond: 0 });
    try {
      const items = (await fetchAllItems(sim.url, HOSTILE_PROFILE, '/v2/transactions')) as Item[];
      expect({
        same: items,
        formula: items.some((item) => JSON.stringify(item).includes('"=1+2"')),
        extraKeys: HOSTILE_EXTRA_KEYS.filter((key) => !items.some((item) => Object.hasOwn(item, key))),
        amounts: HOSTILE_AMOUNTS.filter(
          (a) => !items.some((item) => JSON.stringify(item).includes(JSON.stringify(a))),
        ),
        ordered: items.every((item, i) => i === 0 || (items[i - 1] as Item).date <= item.date),
      }).toEqual({
        same: await fetchAllItems(again.url, HOSTILE_PROFILE, '/v2/transactions'),
        formula: true,
        extraKeys: [],
        amounts: [],
        ordered: true,
      });
    } finally {
      await sim.close();
      await again.close();
    }
  });

  it('is not among the default profiles', () => {
    expect(DEFAULT_PROFILES.map((profile) => profile.name)).not.toContain(HOSTILE_PROFILE.name);
  });
});

describe('startSimulator', () => {
  it('rejects a profile with a negative transaction count, naming the field', async () => {
    const bad: SimulatedProfile = { ...demo, transactions: -1 };
    await expect(startSimulator({ profiles: [bad] })).rejects.toThrow(/profiles\[0\]\.transactions/);
  });
});
