import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import { periodRange } from '../plan/period.ts';
import { parseExportRequest } from '../plan/request.ts';
import { createGainsFeed, type GainsFeed } from './gains-feed.ts';

// A full collection before each reading of the heap: what is left is what the feed holds.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

const heapUsed = () => {
  collect();
  collect();
  return process.memoryUsage().heapUsed;
};

const WEEK_MS = 7 * 86_400_000;

/**
 * Feeds a gains feed for December 2025 a history of `count` one-sided transfers out (each its own
 * hash, valued and not) from 2024 on, one every 10 minutes, in weekly windows; returns the feed.
 */
function feedTransfers(count: number): GainsFeed {
  const request = parseExportRequest({ profile: 'acme', period: '2025-12', reports: ['gains'] });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  const start = Date.parse('2024-01-01T00:00:00.000Z');
  const step = 600_000;
  for (let index = 0; index < count; index += 1) {
    const time = start + index * step;
    const id = `tx_${String(index).padStart(10, '0')}_${'x'.repeat(16)}`;
    feed.add(
      `week-${Math.floor((time - start) / WEEK_MS)}`,
      tx({
        id,
        date: new Date(time).toISOString(),
        category: 'transfer',
        hash: `0x${String(index).padStart(64, '0')}`,
        movements: [leg('ETH', '-0.001', index % 2 === 0 ? '-2.5' : null)],
      }),
    );
  }
  return feed;
}

describe('the gains feed over a long history', () => {
  // A dense history has hundreds of thousands of transfers before the period, none of them warned
  // of (warnings are the period's): keeping something per transaction made 1M transactions run out
  // of a 128 MB heap. Only the current window and the warned transfers are held.
  it('holds no memory per transfer its warnings are in', () => {
    const heldBy = (count: number) => {
      const before = heapUsed();
      const feed = feedTransfers(count);
      const held = heapUsed() - before;
      expect(feed.counts().historyTransactions).toBe(count);
      return held;
    };
    // The same window (a week of 1 008 transactions) is held at the end of either history: what
    // the longer one holds more is what the feed keeps per transaction.
    const perTransaction = (heldBy(60_000) - heldBy(20_000)) / 40_000;
    expect(perTransaction).toBeLessThan(10);
  }, 60_000);

  // Without a spool folder (the engine alone, tests) the disposals of the period are kept in
  // memory, each twice (rounded and exact): a busy month of a dense history has tens of thousands.
  it('keeps the lines of a period without a spool folder as their text', () => {
    const heldBy = (sales: number) => {
      const before = heapUsed();
      const feed = feedSales(sales);
      const held = heapUsed() - before;
      expect(feed.counts().gainsDisposals).toBe(sales);
      return held;
    };
    const perSale = (heldBy(15_000) - heldBy(5_000)) / 10_000;
    expect(perSale).toBeLessThan(800);
  }, 60_000);

  // The render of a snapshot keeps them so (no spool folder): at 1M transactions the last month's
  // disposals were about 35 MB of text, the largest thing the engine held. Amounts and ids here
  // have random digits (18 places, as the data's), which compress the least: their text is about
  // 640 bytes a sale (two lines), and packed they take about a fifth of it.
  it('packs the lines of a period without a spool folder', () => {
    // The packed lines are buffers, outside the heap.
    const used = () => heapUsed() + process.memoryUsage().external;
    const heldBy = (sales: number) => {
      const before = used();
      const feed = feedSales(sales, randomDigits(sales));
      const held = used() - before;
      expect(feed.counts().gainsDisposals).toBe(sales);
      return held;
    };
    const perSale = (heldBy(15_000) - heldBy(5_000)) / 10_000;
    expect(perSale).toBeLessThan(350);
  }, 60_000);
});

/** Random decimal digits from `seed` (a linear congruential generator: the same digits each run). */
function randomDigits(seed: number): (length: number) => string {
  let state = seed;
  return (length) => {
    let out = '';
    for (let index = 0; index < length; index += 1) {
      state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
      out += String(Math.floor((state / 2_147_483_648) * 10));
    }
    return out;
  };
}

/**
 * A feed for December 2025 given `sales` buys and sales of ETH in it, a minute apart, in weekly
 * windows; with `digits`, the amounts, values and ids take their random digits from it.
 */
function feedSales(sales: number, digits?: (length: number) => string): GainsFeed {
  const request = parseExportRequest({ profile: 'acme', period: '2025-12', reports: ['gains'] });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  const start = range.start.toMillis();
  let amount = '';
  for (let index = 0; index < 2 * sales; index += 1) {
    const time = start + index * 60_000;
    const sale = index % 2 === 1;
    // A sale sells what the buy before it bought.
    if (!sale) amount = digits === undefined ? `1.${String(index).padStart(6, '0')}` : `1.${digits(17)}1`;
    const value =
      digits === undefined
        ? `${2_000 + (index % 113)}.${String(index).padStart(8, '0')}`
        : `${2_000 + (index % 113)}.${digits(17)}1`;
    const unique = digits === undefined ? 'x'.repeat(16) : digits(16);
    feed.add(
      `week-${Math.floor((time - start) / WEEK_MS)}`,
      tx({
        id: `tx_${String(index).padStart(10, '0')}_${unique}`,
        date: new Date(time).toISOString(),
        movements: sale
          ? [leg('ETH', `-${amount}`, `-${value}`), leg('USD', value, value)]
          : [leg('USD', `-${value}`, `-${value}`), leg('ETH', amount, value)],
      }),
    );
  }
  return feed;
}
