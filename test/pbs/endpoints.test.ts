import Big from 'big.js';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PbsClient } from '../../lib/pbs/client.ts';
import type { RawTransaction } from '../../lib/pbs/model.ts';
import { closeSimulatorsAfterEach, drain, type Harness, idsOf, startHarness } from './harness.ts';

closeSimulatorsAfterEach();

type Tx = RawTransaction & {
  id: string;
  date: string;
  category: string;
  protocol: string | null;
  hash: string;
  movements: { symbol: string }[];
  value: { amount: string };
};

describe('PbsClient against the simulator', () => {
  let h: Harness;
  let client: PbsClient;
  let all: Tx[];

  beforeEach(async () => {
    h = await startHarness();
    client = h.client();
    all = (await drain(client.transactions())) as Tx[];
    h.sim.clearLog();
  });

  const lastQuery = () => h.sim.requestLog.at(-1)?.query ?? [];

  it('returns every transaction of the portfolio with subType, unique ids, in date order', () => {
    expect(all.length).toBeGreaterThan(300);
    expect(new Set(idsOf(all)).size).toBe(all.length);
    expect(all.every((tx) => typeof tx.subType === 'string')).toBe(true);
    expect(all.map((tx) => tx.date)).toEqual(all.map((tx) => tx.date).sort());
  });

  it('returns accounts with string ids', async () => {
    const accounts = await drain(client.accounts());

    expect(accounts.length).toBeGreaterThan(0);
    expect(accounts.every((a) => typeof a.id === 'string' && typeof a.name === 'string')).toBe(true);
  });

  it('returns ledgers carrying their source GUID', async () => {
    const ledgers = await drain(client.ledgers());

    expect(ledgers.length).toBeGreaterThan(0);
    expect(ledgers.every((l) => typeof (l.source as { sourceGuid?: unknown }).sourceGuid === 'string')).toBe(
      true,
    );
  });

  it('returns date bounds equal to the earliest and latest transaction dates', async () => {
    const bounds = await client.dateBounds();

    expect(bounds.earliest?.toISOString()).toBe(all[0]?.date);
    expect(bounds.latest?.toISOString()).toBe(all.at(-1)?.date);
  });

  it('returns null date bounds for an empty portfolio', async () => {
    await expect(h.client({ profileName: 'empty' }).dateBounds()).resolves.toEqual({
      earliest: null,
      latest: null,
    });
  });

  it('returns the DeFi protocol names used by the portfolio', async () => {
    const protocols = await client.defiProtocols();

    const used = new Set(all.map((tx) => tx.protocol).filter((p) => p !== null));
    expect(new Set(protocols)).toEqual(used);
  });

  it('returns transactions holding any of the tokens, sending t once per token', async () => {
    const result = await drain(client.transactions({ tokens: ['ETH', 'USDC'] }));

    expect(lastQuery().filter(([k]) => k === 't')).toEqual([
      ['t', 'ETH'],
      ['t', 'USDC'],
    ]);
    const expected = all.filter((tx) => tx.movements.some((m) => m.symbol === 'ETH' || m.symbol === 'USDC'));
    expect(idsOf(result)).toEqual(idsOf(expected));
    expect(result.length).toBeLessThan(all.length);
  });

  it('returns the transactions of one category with cf', async () => {
    const result = await drain(client.transactions({ category: 'trade' }));

    expect(lastQuery()).toContainEqual(['cf', 'trade']);
    expect(idsOf(result)).toEqual(idsOf(all.filter((tx) => tx.category === 'trade')));
  });

  it('returns the transactions of one protocol with p', async () => {
    const [protocol] = await client.defiProtocols();

    const result = await drain(client.transactions({ protocol }));

    expect(lastQuery()).toContainEqual(['p', protocol]);
    expect(result.length).toBeGreaterThan(0);
    expect(idsOf(result)).toEqual(idsOf(all.filter((tx) => tx.protocol === protocol)));
  });

  it('returns the transactions of one hash, sending h alone and warning about the dropped filters', async () => {
    const hash = all[7]?.hash as string;

    const result = await drain(
      client.transactions({
        hash,
        tokens: ['BTC'],
        category: 'fee',
        protocol: 'Lido',
        sort: 'value',
        order: 'desc',
      }),
    );

    expect(idsOf(result).sort()).toEqual(idsOf(all.filter((tx) => tx.hash === hash)).sort());
    expect(lastQuery().filter(([k]) => !['page', 'pageSize', 'timestamp', 'signature'].includes(k))).toEqual([
      ['h', hash],
      ['sort', 'value'],
      ['order', 'desc'],
    ]);
    expect(h.logger.warnings.at(-1)?.context).toEqual({ dropped: ['t', 'cf', 'p'] });
  });

  it('returns transactions sorted by value descending with sort and order', async () => {
    const result = (await drain(client.transactions({ sort: 'value', order: 'desc' }))) as Tx[];

    expect(lastQuery()).toEqual(
      expect.arrayContaining([
        ['sort', 'value'],
        ['order', 'desc'],
      ]),
    );
    const values = result.map((tx) => new Big(tx.value.amount));
    expect(values.every((v, i) => i === 0 || v.lte(values[i - 1] as Big))).toBe(true);
    expect(new Set(idsOf(result))).toEqual(new Set(idsOf(all)));
  });

  it('returns the transactions of a [start, end) window', async () => {
    const start = new Date(all[50]?.date as string);
    const end = new Date(all[120]?.date as string);

    const result = await drain(client.transactions({ window: { start, end } }));

    const expected = all.filter((tx) => tx.date >= start.toISOString() && tx.date < end.toISOString());
    expect(idsOf(result)).toEqual(idsOf(expected));
  });

  it.each<[string, () => unknown]>([
    ['an unknown sort key', () => client.transactions({ sort: 'size' as never })],
    ['an unknown order', () => client.transactions({ order: 'up' as never })],
    ['an empty window', () => client.transactions({ window: { start: new Date(5), end: new Date(5) } })],
    ['a blank token', () => client.transactions({ tokens: ['ETH', ' '] })],
    ['an empty cf', () => client.transactions({ category: '' })],
    ['an empty p', () => client.transactionPages({ protocol: '' })],
    ['an empty h', () => client.transactions({ hash: '' })],
    ['an invalid lastModifiedDate', () => client.timelinePages({ lastModifiedDate: new Date('nope') })],
  ])('throws ValidationError for %s without sending a request', (_name, call) => {
    expect(call).toThrow(expect.objectContaining({ name: 'ValidationError' }));
    expect(h.sim.requestLog).toHaveLength(0);
  });

  it('returns the timeline without deleted items when no lastModifiedDate is given', async () => {
    const items = await drain(client.timeline());

    expect(idsOf(items)).toEqual(idsOf(all));
    expect(items.every((item) => item.deleted === undefined)).toBe(true);
    expect(
      items.every((item) => typeof (item.source as { sourceGuid?: unknown }).sourceGuid === 'string'),
    ).toBe(true);
  });

  it('returns deleted items modified since lastModifiedDate in the timeline', async () => {
    const since = new Date('2020-01-01T00:00:00.000Z');

    const items = await drain(client.timeline({ lastModifiedDate: since }));

    expect(lastQuery()).toContainEqual(['lastModifiedDate', since.toISOString()]);
    expect(items.some((item) => item.deleted === true)).toBe(true);
    expect(items.filter((item) => item.deleted !== true).map((item) => item.id)).toEqual(idsOf(all));
  });

  it('returns timeline pages with the total item count', async () => {
    const pages = await drain(client.timelinePages());

    expect(pages[0]?.totalItems).toBe(all.length);
  });
});
