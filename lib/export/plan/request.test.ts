import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import {
  formatPath,
  hashFilterConflicts,
  parseExportRequest,
  RequestValidationError,
  requestWarnings,
} from './request.ts';

const base = { profile: 'acme-fund_1', period: '2026-10' };

/** Parses and returns the thrown error, failing the test when nothing is thrown. */
function refusal(input: unknown): RequestValidationError {
  try {
    parseExportRequest(input);
  } catch (error) {
    if (error instanceof RequestValidationError) return error;
    throw error;
  }
  throw new Error('expected the request to be refused');
}

describe('parseExportRequest', () => {
  it('returns every default for a minimal request', () => {
    expect(parseExportRequest(base)).toEqual({
      profile: 'acme-fund_1',
      period: '2026-10',
      timeZone: 'UTC',
      reports: ['transactions', 'movements', 'summary'],
      formats: ['csv', 'xlsx'],
      filters: {},
      window: 'month',
      csv: { delimiter: ',', decimalSeparator: '.' },
    });
  });

  it('returns a request that parses again to itself', () => {
    const parsed = parseExportRequest({
      ...base,
      period: { from: '2026-01-05', to: '2026-02-10' },
      timeZone: 'Europe/Berlin',
      reports: ['changes', 'summary'],
      changesSince: '2026-01-01',
      formats: ['xlsx'],
      filters: { tokens: ['ETH'], category: 'trade' },
      protocols: ['Aave V3'],
      window: 'week',
      csv: { delimiter: ';', decimalSeparator: ',' },
    });
    expect(parseExportRequest(JSON.parse(JSON.stringify(parsed)))).toEqual(parsed);
  });

  it('returns a request with gains whose JSON a second parse keeps key for key (the snapshot records it)', () => {
    const once = parseExportRequest({ ...base, reports: ['gains', 'journal'], gains: { taxRules: 'us' } });

    const twice = parseExportRequest(JSON.parse(JSON.stringify(once)));

    expect(JSON.stringify(twice)).toBe(JSON.stringify(once));
  });

  it('throws a ValidationError', () => {
    expect(() => parseExportRequest({ ...base, profile: '' })).toThrow(ValidationError);
  });

  it.each(['../etc', 'a/b', '.hidden', '-dash', 'x'.repeat(65), 'a b'])(
    'refuses the profile name %j',
    (profile) => {
      expect(refusal({ ...base, profile }).field).toBe('profile');
    },
  );

  it('refuses a missing profile', () => {
    expect(refusal({ period: '2026-10' }).field).toBe('profile');
  });

  it.each(['2026-13', '2026-1', '26', 'last month', '2026-10-01'])('refuses the period %j', (period) => {
    expect(refusal({ ...base, period }).field).toBe('period');
  });

  it('accepts a year period', () => {
    expect(parseExportRequest({ ...base, period: '2026' }).period).toBe('2026');
  });

  it('refuses an impossible day in a range, naming period.from', () => {
    expect(refusal({ ...base, period: { from: '2025-02-30', to: '2025-03-01' } }).field).toBe('period.from');
  });

  it('refuses a range whose end is before its start, naming period.to', () => {
    expect(refusal({ ...base, period: { from: '2025-03-02', to: '2025-03-01' } }).field).toBe('period.to');
  });

  it('refuses an unknown time zone', () => {
    expect(refusal({ ...base, timeZone: 'Mars/Olympus' }).field).toBe('timeZone');
  });

  it('returns brokerReporting none for us rules, and the value asked for', () => {
    const gains = (more: Record<string, unknown>) =>
      parseExportRequest({ ...base, reports: ['gains'], gains: { taxRules: 'us', ...more } }).gains
        ?.brokerReporting;
    expect([gains({}), gains({ brokerReporting: 'basis-reported' })]).toEqual(['none', 'basis-reported']);
  });

  it('refuses brokerReporting without us rules and an unknown value, naming gains.brokerReporting', () => {
    const reasons = [
      refusal({ ...base, reports: ['gains'], gains: { brokerReporting: 'none' } }),
      refusal({ ...base, reports: ['gains'], gains: { taxRules: 'us', brokerReporting: 'some' } }),
    ].map((error) => error.field);
    expect(reasons).toEqual(['gains.brokerReporting', 'gains.brokerReporting']);
  });

  it('returns brokerReporting account by account, the accounts not listed taking the default (none)', () => {
    const gains = parseExportRequest({
      ...base,
      reports: ['gains'],
      gains: { taxRules: 'us', brokerReporting: { accounts: { coinbase: 'basis-not-reported' } } },
    }).gains;
    expect(gains?.brokerReporting).toEqual({ default: 'none', accounts: { coinbase: 'basis-not-reported' } });
    // A parsed request parses again unchanged.
    expect(parseExportRequest({ ...base, reports: ['gains'], gains }).gains).toEqual(gains);
  });

  it('refuses a bad per-account reporting and walletAllocation without wallet-from-2025, naming the field', () => {
    const reasons = [
      refusal({
        ...base,
        reports: ['gains'],
        gains: { taxRules: 'us', brokerReporting: { accounts: { coinbase: 'some' } } },
      }),
      refusal({ ...base, reports: ['gains'], gains: { walletAllocation: 'records' } }),
    ].map((error) => error.field);
    expect(reasons).toEqual(['gains.brokerReporting.accounts.coinbase', 'gains.walletAllocation']);
  });

  it('accepts an IANA time zone', () => {
    expect(parseExportRequest({ ...base, timeZone: 'Asia/Kolkata' }).timeZone).toBe('Asia/Kolkata');
  });

  it('refuses an unknown report', () => {
    expect(refusal({ ...base, reports: ['transactions', 'ledger'] }).field).toBe('reports[1]');
  });

  it('refuses an empty report list', () => {
    expect(refusal({ ...base, reports: [] }).field).toBe('reports');
  });

  it('returns reports deduplicated in canonical order', () => {
    expect(parseExportRequest({ ...base, reports: ['summary', 'transactions', 'summary'] }).reports).toEqual([
      'transactions',
      'summary',
    ]);
  });

  it('refuses changes without changesSince', () => {
    expect(refusal({ ...base, reports: ['changes'] }).field).toBe('changesSince');
  });

  it('refuses changesSince without the changes report', () => {
    expect(refusal({ ...base, changesSince: '2026-01-01' }).field).toBe('changesSince');
  });

  it('refuses a changesSince instant without an offset', () => {
    expect(refusal({ ...base, reports: ['changes'], changesSince: '2026-01-01T10:00:00' }).field).toBe(
      'changesSince',
    );
  });

  it('accepts a changesSince instant', () => {
    const request = parseExportRequest({
      ...base,
      reports: ['changes'],
      changesSince: '2026-01-01T10:00:00.000Z',
    });
    expect(request.changesSince).toBe('2026-01-01T10:00:00.000Z');
  });

  it('refuses an empty format list', () => {
    expect(refusal({ ...base, formats: [] }).field).toBe('formats');
  });

  it('refuses an unknown format', () => {
    expect(refusal({ ...base, formats: ['pdf'] }).field).toBe('formats[0]');
  });

  it('returns tokens trimmed and deduplicated', () => {
    expect(
      parseExportRequest({ ...base, filters: { tokens: [' ETH', 'USDC', 'ETH '] } }).filters.tokens,
    ).toEqual(['ETH', 'USDC']);
  });

  it('refuses a blank token, naming its index', () => {
    expect(refusal({ ...base, filters: { tokens: ['ETH', '  '] } }).field).toBe('filters.tokens[1]');
  });

  it('returns no tokens filter for an empty token list', () => {
    expect(parseExportRequest({ ...base, filters: { tokens: [] } }).filters).toEqual({});
  });

  it('refuses an unknown filter', () => {
    expect(refusal({ ...base, filters: { chain: 'eth' } }).field).toBe('filters.chain');
  });

  it('accepts protocols "all"', () => {
    expect(parseExportRequest({ ...base, protocols: 'all' }).protocols).toBe('all');
  });

  it('returns a protocol list deduplicated', () => {
    expect(parseExportRequest({ ...base, protocols: ['Aave V3', 'Aave V3'] }).protocols).toEqual(['Aave V3']);
  });

  it('refuses an empty protocol list', () => {
    expect(refusal({ ...base, protocols: [] }).field).toBe('protocols');
  });

  it('refuses an unknown window size', () => {
    expect(refusal({ ...base, window: 'quarter' }).field).toBe('window');
  });

  it('refuses a delimiter equal to the decimal separator', () => {
    expect(refusal({ ...base, csv: { delimiter: ',', decimalSeparator: ',' } }).field).toBe(
      'csv.decimalSeparator',
    );
  });

  it('returns a semicolon delimiter when only a decimal comma is asked for', () => {
    expect(parseExportRequest({ ...base, csv: { decimalSeparator: ',' } }).csv).toEqual({
      delimiter: ';',
      decimalSeparator: ',',
    });
  });

  it('refuses an unknown top-level key, naming it', () => {
    expect(refusal({ ...base, bucket: 'x' }).field).toBe('bucket');
  });

  it('refuses a non-object request', () => {
    expect(refusal('2026-10').reason).toMatch(/object/);
  });

  it('names the first invalid field and lists every issue in the message', () => {
    const error = refusal({ ...base, period: '2026-13', timeZone: 'Nowhere', formats: [] });
    expect([error.field, error.issues.map((issue) => issue.field)]).toEqual([
      'period',
      ['period', 'timeZone', 'formats'],
    ]);
  });

  it('returns a message holding each issue', () => {
    const { message } = refusal({ ...base, period: '2026-13', timeZone: 'Nowhere' });
    expect(message).toMatch(/^period: .+; timeZone: .+$/);
  });

  it('accepts any valid month in any valid zone', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1970, max: 2100 }),
        fc.integer({ min: 1, max: 12 }),
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Asia/Kathmandu'),
        (year, month, timeZone) => {
          const period = `${year}-${String(month).padStart(2, '0')}`;
          expect(parseExportRequest({ ...base, period, timeZone }).period).toBe(period);
        },
      ),
    );
  });
});

describe('formatPath', () => {
  it('returns array indexes in brackets and keys joined by dots', () => {
    expect(formatPath(['filters', 'tokens', 1, 'x'])).toBe('filters.tokens[1].x');
  });

  it('returns keys that are not plain names as quoted indexes, so every path names its field', () => {
    expect([
      formatPath(['']),
      formatPath(['filters', 'a.b']),
      formatPath(['x\u0000y']),
      formatPath(['🚀']),
    ]).toEqual(['[""]', 'filters["a.b"]', '["x\\u0000y"]', '["🚀"]']);
  });

  it('returns a key over 100 characters cut', () => {
    expect(formatPath(['k'.repeat(5_000)])).toBe(`["${'k'.repeat(100)}…"]`);
  });
});

describe('parseExportRequest with odd keys', () => {
  it('refuses an empty top-level key, naming it as [""]', () => {
    expect(refusal({ ...base, '': 'x' }).field).toBe('[""]');
  });
});

describe('parseExportRequest filter values', () => {
  it.each([
    ['filters.tokens[0]', { filters: { tokens: ['E'.repeat(257)] } }],
    ['filters.hash', { filters: { hash: '0xabc\u0000' } }],
    ['filters.category', { filters: { category: 'trade\u001b[31m' } }],
    ['protocols[0]', { protocols: ['Lido\ud800'] }],
  ])('refuses a value the service query cannot carry as sent, naming %s', (field, body) => {
    expect(refusal({ ...base, ...body }).field).toBe(field);
  });

  it('accepts a 256-character value with non-ASCII text and emoji', () => {
    const token = `Ü🚀${'x'.repeat(253)}`;
    expect(parseExportRequest({ ...base, filters: { tokens: [token] } }).filters.tokens).toEqual([token]);
  });
});

describe('hashFilterConflicts', () => {
  it('returns the filters a hash makes the service ignore, as issues', () => {
    const request = parseExportRequest({
      ...base,
      filters: { hash: '0xabc', tokens: ['ETH'] },
      protocols: ['Lido'],
    });
    expect(hashFilterConflicts(request).map((issue) => issue.field)).toEqual(['filters.tokens', 'protocols']);
  });

  it('returns nothing for a hash alone or filters without a hash', () => {
    expect([
      hashFilterConflicts(parseExportRequest({ ...base, filters: { hash: '0xabc' } })),
      hashFilterConflicts(parseExportRequest({ ...base, filters: { tokens: ['ETH'], category: 'trade' } })),
    ]).toEqual([[], []]);
  });
});

describe('requestWarnings', () => {
  it('returns no warning for a hash alone', () => {
    expect(requestWarnings(parseExportRequest({ ...base, filters: { hash: '0xabc' } }))).toEqual([]);
  });

  it('returns a warning naming the filters a hash makes the service ignore', () => {
    const request = parseExportRequest({
      ...base,
      filters: { hash: '0xabc', category: 'trade' },
      protocols: 'all',
    });
    expect(requestWarnings(request)).toEqual([
      'filters.hash is given: the service ignores filters.category, protocols when a hash is given',
    ]);
  });

  it('returns no warning without a hash', () => {
    expect(requestWarnings(parseExportRequest({ ...base, filters: { tokens: ['ETH'] } }))).toEqual([]);
  });
});
