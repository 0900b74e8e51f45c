import { describe, expect, it } from 'vitest';
import { scheduleFloorMs } from '../../bench/latency.ts';

/** Listings of `pages` pages of 100 holding `rows` items. */
const listings = (count: number, pages: number, rows: number) =>
  Array.from({ length: count }, () => ({ pages, rows }));

describe('the latency bench floor', () => {
  it('is the requests ÷ concurrency when first pages fill the first step', () => {
    // 8 first pages, then 8 × 5 further pages: 6 rounds of 8 requests.
    expect(scheduleFloorMs(listings(8, 6, 555), 8, 50, 100)).toBe(300);
  });

  it('waits for a listing’s first page before its others', () => {
    // One listing of 9 pages: its first page alone, then the other 8 at once.
    expect(scheduleFloorMs(listings(1, 9, 850), 8, 50, 100)).toBe(100);
  });

  it('asks for the empty page that confirms a full last page only after it', () => {
    // 200 items: pages 1, 2, then the empty third, one after another.
    expect(scheduleFloorMs(listings(1, 3, 200), 8, 50, 100)).toBe(150);
  });

  it('starts first pages ahead of pages that have nothing behind them', () => {
    // Two listings of 5 pages and concurrency 2: first pages together (1), then 8 pages (4).
    expect(scheduleFloorMs(listings(2, 5, 450), 2, 10, 100)).toBe(50);
  });

  it('takes no time for no listings', () => {
    expect(scheduleFloorMs([], 8, 50, 100)).toBe(0);
  });
});
