import { describe, expect, it } from 'vitest';
import { buy, sell } from '../../test/support/gains.ts';
import { periodRange } from '../export/plan/period.ts';
import { parseExportRequest, RequestValidationError } from '../export/plan/request.ts';
import { createJournalFeed } from '../export/report/journal-feed.ts';
import { createGainsEngine, gainsMoney } from '../gains/index.ts';
import { TieOutError } from './errors.ts';

/** A numbered chart giving every account (the 30-day account only matters under HMRC identification). */
const NUMBERED = {
  defaults: 'none',
  asset: { code: '1510' },
  cash: { code: '1200' },
  fee: { code: '4970' },
  gain: { code: '4900' },
  loss: { code: '6900' },
  income: { code: '4800' },
  opening: { code: '9000' },
  rounding: { code: '6990' },
  unclassified: { code: '1590' },
  'transfer-out': { code: '1591' },
  'thirty-day': { code: '4905' },
};

const request = (extra: Record<string, unknown>) =>
  parseExportRequest({ profile: 'acme', period: '2025', reports: ['journal'], ...extra });

describe('journal request', () => {
  it('implies the gains report with its default options', () => {
    const parsed = request({});
    expect(parsed.reports).toEqual(['gains', 'journal']);
    expect(parsed.gains?.method).toBe('fifo');
    expect(parsed.journal).toMatchObject({ formats: ['csv', 'beancount', 'hledger'], rollup: false });
  });

  it.each([
    [{ journal: { chart: { bank: { code: '1200' } } } }, 'journal.chart.bank', /unknown account kind/],
    [
      { journal: { chart: { defaults: 'none', asset: { code: '1510' } } } },
      'journal.chart.cash.code',
      /required/,
    ],
    [{ journal: { formats: ['csv', 'gnucash'] } }, 'journal.formats[1]', /unknown journal format/],
    [
      { journal: { chart: { asset: { perWallet: true } } } },
      'journal.chart.asset.perWallet',
      /pooling "account"/,
    ],
    [
      { gains: { taxRules: 'uk', pooling: 'account' }, journal: { chart: { asset: { perWallet: true } } } },
      'journal.chart.asset.perWallet',
      /not available with HMRC identification/,
    ],
    [
      { gains: { taxRules: 'uk' }, journal: { chart: { ...NUMBERED, 'thirty-day': undefined } } },
      'journal.chart.thirty-day.code',
      /required: .*HMRC identification/,
    ],
  ])('refuses %j naming %s', (extra, field, reason) => {
    let error: unknown;
    try {
      request(extra);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(RequestValidationError);
    const issue = (error as RequestValidationError).issues.find((i) => i.field === field);
    expect(issue?.reason).toMatch(reason);
  });

  it('takes HMRC identification (uk rules): each disposal is posted at its cost as finally matched', () => {
    const parsed = request({ gains: { taxRules: 'uk' } });
    expect(parsed.gains?.method).toBe('hmrc');
    expect(parsed.reports).toContain('journal');
  });

  it('takes a numbered chart without the 30-day account when HMRC identification is not used, and with it when it is', () => {
    const { 'thirty-day': _omitted, ...withoutIt } = NUMBERED;
    expect(request({ journal: { chart: withoutIt } }).journal?.chart.defaults).toBe('none');
    expect(request({ gains: { taxRules: 'uk' }, journal: { chart: NUMBERED } }).gains?.method).toBe('hmrc');
  });

  it('refuses a journal block without the journal report', () => {
    expect(() =>
      parseExportRequest({ profile: 'acme', period: '2025', reports: ['gains'], journal: {} }),
    ).toThrow(/journal: only allowed when reports include "journal"/);
  });
});

describe('journal tie-out', () => {
  it('fails naming the account and the difference when the month-end balances differ from the holdings', () => {
    const parsed = request({});
    const range = periodRange(parsed.period, parsed.timeZone);
    const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
    const feed = createJournalFeed(parsed, period);
    const engine = createGainsEngine(
      { period: { start: period.start.toISOString(), end: period.end.toISOString() } },
      undefined,
      feed.observer,
    );
    let calls = 0;
    // The holdings as a broken engine would report them after the opening: 1 BTC more at 5.
    const lying = {
      ...engine,
      positions: () => {
        calls += 1;
        const real = engine.positions();
        return calls === 1 ? real : [...real, { token: 'BTC', account: null, quantity: '1', cost: '5' }];
      },
    };
    feed.attach(lying, () => gainsMoney('USD'));
    engine.process(buy('b1', '2025-01-10', 'ETH', '1', '100'));
    engine.process(sell('s1', '2025-02-10', 'ETH', '0.5', '80'));
    engine.finish();
    let error: unknown;
    try {
      feed.finish();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TieOutError);
    expect((error as TieOutError).message).toMatch(
      /quantity at 2025-01-31, account Assets:Crypto:BTC \(BTC\): journal 0, reports 1, difference -1/,
    );
  });
});
