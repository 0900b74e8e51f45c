import fc from 'fast-check';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import { periodRange } from './period.ts';
import {
  planFromJson,
  planShards,
  planToJson,
  planWindows,
  protocolSlug,
  protocolSlugs,
  resolveProtocols,
  type Window,
} from './plan.ts';
import type { WindowSize } from './request.ts';

const wide = { earliest: new Date('2000-01-01T00:00:00.000Z'), latest: new Date('2099-12-31T23:59:59.999Z') };

const view = (windows: Window[]) =>
  windows.map((window) => [window.label, window.start.toISOString(), window.end.toISOString()]);

describe('planWindows', () => {
  it('returns no windows for an empty portfolio', () => {
    const bounds = { earliest: null, latest: null };
    expect(planWindows({ period: '2026', timeZone: 'UTC', window: 'month', bounds })).toEqual([]);
  });

  it('returns no windows for a period before the earliest transaction', () => {
    const bounds = { earliest: new Date('2026-03-01T00:00:00Z'), latest: new Date('2026-05-01T00:00:00Z') };
    expect(planWindows({ period: '2025', timeZone: 'UTC', window: 'month', bounds })).toEqual([]);
  });

  it('returns no windows for a period after the latest transaction', () => {
    const bounds = {
      earliest: new Date('2024-03-01T00:00:00Z'),
      latest: new Date('2024-12-31T23:59:59.999Z'),
    };
    expect(planWindows({ period: '2025', timeZone: 'UTC', window: 'month', bounds })).toEqual([]);
  });

  it('returns one window per month of a UTC year', () => {
    const windows = planWindows({ period: '2026', timeZone: 'UTC', window: 'month', bounds: wide });
    expect(windows.map((window) => window.label)).toEqual(
      Array.from({ length: 12 }, (_, i) => `2026-${String(i + 1).padStart(2, '0')}`),
    );
  });

  it('returns whole months around the bounds, never cut at a bound', () => {
    const bounds = {
      earliest: new Date('2026-02-10T08:00:00.000Z'),
      latest: new Date('2026-04-03T12:00:00.000Z'),
    };
    expect(view(planWindows({ period: '2026', timeZone: 'UTC', window: 'month', bounds }))).toEqual([
      ['2026-02', '2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z'],
      ['2026-03', '2026-03-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
      ['2026-04', '2026-04-01T00:00:00.000Z', '2026-05-01T00:00:00.000Z'],
    ]);
  });

  it('returns the whole last day when the latest bound is cut to whole seconds before the last transaction', () => {
    // The last transaction is at 23:30:00.500; the service wrote its bound as 23:30:00.
    const bounds = {
      earliest: new Date('2025-10-01T00:00:00.000Z'),
      latest: new Date('2025-10-31T23:30:00.000Z'),
    };
    const windows = planWindows({ period: '2025-10', timeZone: 'UTC', window: 'day', bounds });
    expect(windows.at(-1)?.end.toISOString()).toBe('2025-11-01T00:00:00.000Z');
  });

  it('returns windows at Berlin midnights across the spring DST change', () => {
    const windows = planWindows({
      period: { from: '2026-03-28', to: '2026-03-30' },
      timeZone: 'Europe/Berlin',
      window: 'day',
      bounds: wide,
    });
    expect(view(windows)).toEqual([
      ['2026-03-28', '2026-03-27T23:00:00.000Z', '2026-03-28T23:00:00.000Z'],
      ['2026-03-29', '2026-03-28T23:00:00.000Z', '2026-03-29T22:00:00.000Z'],
      ['2026-03-30', '2026-03-29T22:00:00.000Z', '2026-03-30T22:00:00.000Z'],
    ]);
  });

  it('returns a 25-hour day on the autumn DST change', () => {
    const [window] = planWindows({
      period: { from: '2026-10-25', to: '2026-10-25' },
      timeZone: 'Europe/Berlin',
      window: 'day',
      bounds: wide,
    });
    expect(window && window.end.getTime() - window.start.getTime()).toBe(25 * 3600 * 1000);
  });

  it('returns ISO-week windows starting on Mondays, labelled by ISO week', () => {
    const windows = planWindows({
      period: { from: '2026-01-01', to: '2026-01-14' },
      timeZone: 'UTC',
      window: 'week',
      bounds: wide,
    });
    expect(view(windows)).toEqual([
      ['2026-W01', '2026-01-01T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
      ['2026-W02', '2026-01-05T00:00:00.000Z', '2026-01-12T00:00:00.000Z'],
      ['2026-W03', '2026-01-12T00:00:00.000Z', '2026-01-15T00:00:00.000Z'],
    ]);
  });

  it('returns one year window for a month period with year windows', () => {
    expect(view(planWindows({ period: '2026-10', timeZone: 'UTC', window: 'year', bounds: wide }))).toEqual([
      ['2026', '2026-10-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z'],
    ]);
  });

  it('returns windows numbered from 0 in order', () => {
    const windows = planWindows({ period: '2026-10', timeZone: 'UTC', window: 'week', bounds: wide });
    expect(windows.map((window) => window.index)).toEqual(windows.map((_, i) => i));
  });

  it('returns contiguous, non-overlapping, aligned whole windows that cover period ∩ bounds', () => {
    const zones = [
      'UTC',
      'Europe/Berlin',
      'America/Santiago',
      'Australia/Lord_Howe',
      'Asia/Kathmandu',
      'Pacific/Apia',
    ];
    const sizes: WindowSize[] = ['day', 'week', 'month', 'year'];
    const instant = fc.integer({ min: Date.UTC(2010, 0, 1), max: Date.UTC(2030, 0, 1) });
    fc.assert(
      fc.property(
        fc.integer({ min: 2011, max: 2029 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom(...zones),
        fc.constantFrom(...sizes),
        instant,
        instant,
        (year, month, timeZone, window, a, b) => {
          const period = `${year}-${String(month).padStart(2, '0')}`;
          const bounds = { earliest: new Date(Math.min(a, b)), latest: new Date(Math.max(a, b)) };
          const windows = planWindows({ period, timeZone, window, bounds });
          const range = periodRange(period, timeZone);
          const start = Math.max(range.start.toMillis(), Math.min(a, b));
          const end = Math.min(range.end.toMillis(), Math.max(a, b) + 1);
          if (start >= end) {
            expect(windows).toEqual([]);
            return;
          }
          // Whole units of the zone's calendar, cut only by the period, covering the bounds.
          const unitOf = (ms: number) => DateTime.fromMillis(ms, { zone: timeZone }).startOf(window);
          expect(windows[0]?.start.getTime()).toBe(
            Math.max(range.start.toMillis(), unitOf(start).toMillis()),
          );
          const lastUnitEnd = unitOf(end - 1)
            .plus({ [`${window}s`]: 1 })
            .startOf(window)
            .toMillis();
          expect(windows.at(-1)?.end.getTime()).toBe(Math.min(range.end.toMillis(), lastUnitEnd));
          windows.forEach((w, i) => {
            expect(w.start.getTime()).toBeLessThan(w.end.getTime());
            if (i > 0) expect(w.start.getTime()).toBe(windows[i - 1]?.end.getTime());
            // Every inner boundary is the start of a local calendar unit.
            if (i > 0) {
              const local = DateTime.fromJSDate(w.start, { zone: timeZone });
              expect(local.startOf(window).toMillis()).toBe(local.toMillis());
            }
          });
          expect(new Set(windows.map((w) => w.label)).size).toBe(windows.length);
        },
      ),
    );
  });
});

describe('protocolSlug', () => {
  it('returns lowercase words joined by dashes', () => {
    expect(protocolSlug('Aave V3')).toBe('aave-v3');
  });

  it('returns accented letters without their accents', () => {
    expect(protocolSlug('Café Swap (beta)')).toBe('cafe-swap-beta');
  });
});

describe('protocolSlugs', () => {
  it('returns distinct slugs for names that slug alike', () => {
    const slugs = protocolSlugs(['Aave V3', 'aave-v3']);
    expect(new Set(slugs.values()).size).toBe(2);
  });

  it('returns a hash slug for a name without ASCII letters or digits', () => {
    expect(protocolSlugs(['スワップ']).get('スワップ')).toMatch(/^[0-9a-f]{8}$/);
  });

  it('returns the same slug for a name whatever the list order', () => {
    expect(protocolSlugs(['Aave V3', 'aave-v3']).get('aave-v3')).toBe(
      protocolSlugs(['aave-v3', 'Aave V3']).get('aave-v3'),
    );
  });
});

describe('planShards', () => {
  const windows = planWindows({
    period: { from: '2025-03-01', to: '2025-04-30' },
    timeZone: 'UTC',
    window: 'month',
    bounds: wide,
  });

  it('returns one shard per window without a protocol filter', () => {
    expect(planShards(windows, null).map((shard) => [shard.id, shard.protocol])).toEqual([
      ['2025-03', null],
      ['2025-04', null],
    ]);
  });

  it('returns window × protocol shards, window-major, with file-safe ids', () => {
    expect(planShards(windows, ['Aave V3', 'Uniswap V3']).map((shard) => shard.id)).toEqual([
      '2025-03~aave-v3',
      '2025-03~uniswap-v3',
      '2025-04~aave-v3',
      '2025-04~uniswap-v3',
    ]);
  });

  it('returns shards carrying the original protocol name', () => {
    expect(planShards(windows, ['Aave V3'])[0]?.protocol).toBe('Aave V3');
  });

  it('returns no shards for an empty protocol list', () => {
    expect(planShards(windows, [])).toEqual([]);
  });

  it('returns unique ids made of file-safe characters for any protocol names', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 12 }), { maxLength: 8 }),
        (protocols) => {
          const ids = planShards(windows, protocols).map((shard) => shard.id);
          expect(new Set(ids).size).toBe(ids.length);
          for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z~-]+$/);
        },
      ),
    );
  });
});

describe('resolveProtocols', () => {
  const available = ['Aave V3', 'Uniswap V3'];

  it('returns null when no protocol was requested', () => {
    expect(resolveProtocols(undefined, available)).toBeNull();
  });

  it('returns every available protocol for "all"', () => {
    expect(resolveProtocols('all', available)).toEqual(available);
  });

  it('returns the requested protocols when all are available', () => {
    expect(resolveProtocols(['Uniswap V3'], available)).toEqual(['Uniswap V3']);
  });

  it('throws a ValidationError on protocols for an unknown name', () => {
    expect(() => resolveProtocols(['Curve'], available)).toThrow(ValidationError);
  });

  it('throws an error that lists the valid names', () => {
    expect(() => resolveProtocols(['Curve'], available)).toThrow(
      'protocols: unknown protocol "Curve"; valid names: "Aave V3", "Uniswap V3"',
    );
  });
});

describe('planToJson / planFromJson', () => {
  it('returns the same plan after a round trip through JSON', () => {
    const windows = planWindows({
      period: '2025',
      timeZone: 'Europe/Berlin',
      window: 'month',
      bounds: { earliest: new Date('2024-06-01T00:00:00Z'), latest: new Date('2025-03-10T00:00:00Z') },
    });
    const plan = { windows, shards: planShards(windows, ['Aave V3', 'Lido']) };
    expect(planFromJson(JSON.parse(JSON.stringify(planToJson(plan))))).toEqual(plan);
  });

  it('refuses a shard that names a window the plan does not have', () => {
    expect(() => planFromJson({ windows: [], shards: [{ id: 'x', window: 3, protocol: null }] })).toThrow(
      /plan\.shards: shard x names unknown window 3/,
    );
  });
});
