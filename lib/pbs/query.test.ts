import { describe, expect, it } from 'vitest';
import { recordingLogger } from '../../test/pbs/support.ts';
import { ValidationError } from '../errors.ts';
import type { SortKey, SortOrder, TransactionQuery } from './model.ts';
import { formatWindow, timelineParams, transactionParams } from './query.ts';
import { resolveShape } from './shape.ts';

const shape = resolveShape();
const window = { start: new Date('2025-01-01T00:00:00.000Z'), end: new Date('2025-02-01T00:00:00.000Z') };

function params(query: TransactionQuery, logger = recordingLogger()) {
  return transactionParams(query, shape, logger);
}

describe('transactionParams', () => {
  it('returns t once per token, then cf, p, sort, order and the window', () => {
    expect(
      params({
        tokens: ['ETH', 'USDC'],
        category: 'trade',
        protocol: 'Aave V3',
        sort: 'value',
        order: 'desc',
        window,
      }),
    ).toEqual([
      ['t', 'ETH'],
      ['t', 'USDC'],
      ['cf', 'trade'],
      ['p', 'Aave V3'],
      ['sort', 'value'],
      ['order', 'desc'],
      ['startDate', '2025-01-01T00:00:00.000Z'],
      ['endDate', '2025-02-01T00:00:00.000Z'],
    ]);
  });

  it('returns h alone with sort and order when a hash is given', () => {
    expect(
      params({ hash: '0xabc', tokens: ['ETH'], category: 'fee', protocol: 'X', window, sort: 'date' }),
    ).toEqual([
      ['h', '0xabc'],
      ['sort', 'date'],
    ]);
  });

  it('logs a warning naming the filters dropped for h', () => {
    const logger = recordingLogger();

    params({ hash: '0xabc', tokens: ['ETH'], category: 'fee', window }, logger);

    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.context).toEqual({ dropped: ['t', 'cf', 'startDate/endDate'] });
  });

  it('logs no warning for h given alone', () => {
    const logger = recordingLogger();

    params({ hash: '0xabc', order: 'asc' }, logger);

    expect(logger.warnings).toEqual([]);
  });

  it('returns an empty list for an empty query', () => {
    expect(params({})).toEqual([]);
  });

  it('returns the window under the parameter names of the shape', () => {
    const custom = resolveShape({
      window: { startParam: 'from', endParam: 'to', dateFormat: 'epoch-millis' },
    });

    expect(transactionParams({ window }, custom, recordingLogger())).toEqual([
      ['from', '1735689600000'],
      ['to', '1738368000000'],
    ]);
  });

  it.each<[string, TransactionQuery, string]>([
    ['unknown sort key', { sort: 'size' as SortKey }, 'sort'],
    ['unknown order', { order: 'up' as SortOrder }, 'order'],
    ['invalid start date', { window: { start: new Date('x'), end: window.end } }, 'window.start'],
    ['invalid end date', { window: { start: window.start, end: new Date(Number.NaN) } }, 'window.end'],
    ['start equal to end', { window: { start: window.start, end: window.start } }, 'window'],
    ['start after end', { window: { start: window.end, end: window.start } }, 'window'],
    ['empty token', { tokens: ['ETH', ''] }, 'tokens[1]'],
    ['blank token', { tokens: ['  '] }, 'tokens[0]'],
    ['empty cf', { category: '' }, 'category'],
    ['empty p', { protocol: '' }, 'protocol'],
    ['empty h', { hash: '' }, 'hash'],
    ['blank h', { hash: ' ' }, 'hash'],
  ])('throws ValidationError naming the argument for %s', (_name, query, field) => {
    expect(() => params(query)).toThrow(expect.objectContaining({ name: 'ValidationError', field }));
    expect(() => params(query)).toThrow(ValidationError);
  });
});

describe('formatWindow', () => {
  it('returns start date and the date of end − 1 ms for iso-date (end inclusive)', () => {
    expect(formatWindow(window, 'iso-date')).toEqual({ start: '2025-01-01', end: '2025-01-31' });
  });

  it('returns a day-granular superset for an iso-date window inside one day', () => {
    const inner = { start: new Date('2025-03-14T09:00:00Z'), end: new Date('2025-03-14T10:00:00Z') };

    expect(formatWindow(inner, 'iso-date')).toEqual({ start: '2025-03-14', end: '2025-03-14' });
  });

  it('returns decimal milliseconds for epoch-millis', () => {
    expect(formatWindow(window, 'epoch-millis')).toEqual({ start: '1735689600000', end: '1738368000000' });
  });

  it('returns ISO instants with milliseconds for iso-instant', () => {
    expect(formatWindow(window, 'iso-instant')).toEqual({
      start: '2025-01-01T00:00:00.000Z',
      end: '2025-02-01T00:00:00.000Z',
    });
  });
});

describe('timelineParams', () => {
  const at = new Date('2025-03-14T09:26:53.000Z');

  it('returns no parameter without lastModifiedDate', () => {
    expect(timelineParams({}, shape)).toEqual([]);
  });

  it.each([
    ['iso-instant', '2025-03-14T09:26:53.000Z'],
    ['iso-date', '2025-03-14'],
    ['epoch-millis', '1741944413000'],
  ] as const)('returns lastModifiedDate in the %s format', (format, expected) => {
    const custom = resolveShape({ timeline: { lastModifiedDateFormat: format } });

    expect(timelineParams({ lastModifiedDate: at }, custom)).toEqual([['lastModifiedDate', expected]]);
  });

  it('throws ValidationError for an invalid lastModifiedDate', () => {
    expect(() => timelineParams({ lastModifiedDate: new Date('nope') }, shape)).toThrow(
      expect.objectContaining({ field: 'lastModifiedDate' }),
    );
  });
});
