/**
 * uk figures a filer can sign (issue 24): the computation is exact and rounding happens once, when
 * a line is shown; proceeds are gross with fees among the allowable costs; the 30 days after the
 * period's end match the period's disposals; SA108's own boxes and reference lines. Each case is
 * the issue's, with figures worked out by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../../test/support/gains.ts';
import type { CanonicalTransaction, Row } from '../../../domain/index.ts';
import { runGains } from '../../index.ts';
import { gainsReports } from '../../reports.ts';
import type { GainsOptions, GainsResult } from '../../types.ts';

let counter = 0;
const when = (date: string) => (date.length === 10 ? `${date}T12:00:00.000Z` : date);

/** A purchase of `quantity` for `cost` pounds. */
function buy(date: string, token: string, quantity: string, cost: string): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `b${counter}`,
    date: when(date),
    valueCurrency: 'GBP',
    feeCurrency: 'GBP',
    movements: [leg('GBP', `-${cost}`, `-${cost}`), leg(token, quantity, cost)],
  });
}

/** A sale of `quantity` for `proceeds` pounds, with a fiat fee of `fee` pounds. */
function sell(
  date: string,
  token: string,
  quantity: string,
  proceeds: string,
  fee?: string,
): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `s${counter}`,
    date: when(date),
    valueCurrency: 'GBP',
    feeCurrency: 'GBP',
    ...(fee === undefined ? {} : { feeAmount: fee }),
    movements: [leg(token, `-${quantity}`, `-${proceeds}`), leg('GBP', proceeds, proceeds)],
  });
}

const uk = (history: CanonicalTransaction[], options: GainsOptions = {}) =>
  runGains(history, { taxRules: 'uk', ...options }).result;

const lines = (result: GainsResult) =>
  result.disposals.map((d) => [d.rule, d.quantity, d.proceeds, d.cost, d.gain]);

async function rowsOf(result: GainsResult, name: string, currency?: string): Promise<Row[]> {
  const table = gainsReports(result, currency === undefined ? {} : { currency }).find(
    (t) => t.spec.name === name,
  );
  const rows: Row[] = [];
  for await (const row of table?.rows() ?? []) rows.push(row);
  return rows;
}

describe('uk: exact shares, rounded once when shown (issue 24, items 1 and 2)', () => {
  it('returns £0.004 and £0.396 for 10 and 990 of a £0.40 pool of 1 000, never a negative cost', async () => {
    const result = uk([
      buy('2024-05-01', 'SHIB', '1000', '0.40'),
      sell('2024-07-01', 'SHIB', '10', '0.01'),
      sell('2024-09-01', 'SHIB', '990', '0.50'),
    ]);
    // 0.40 × 10 / 1 000 = 0.004; the rest, 0.396, goes with the last 990.
    expect(lines(result)).toEqual([
      ['section-104', '10', '0.01', '0.004', '0.006'],
      ['section-104', '990', '0.5', '0.396', '0.104'],
    ]);
    expect(result.poolHistory.map((p) => p.poolCost)).toEqual(['0.4', '0.396', '0']);
    // Shown to the penny, once: the lines' costs are 0.00 and 0.40, and the totals add them.
    const shown = await rowsOf(result, 'disposals', 'GBP');
    expect(shown.map((row) => [row[4], row[5], row[6]])).toEqual([
      ['0.01', '0.00', '0.01'],
      ['0.50', '0.40', '0.10'],
    ]);
  });

  it('returns +£4.00 for forty gas-sized disposals from a 10 ETH pool that cost £20 000', async () => {
    // Each 0.0002 ETH costs 20 000 × 0.0002 / 10 = £0.40 exactly and is sold for £0.50.
    const gas = Array.from({ length: 40 }, (_, i) =>
      sell(new Date(Date.UTC(2024, 5, 1 + i, 12)).toISOString(), 'ETH', '0.0002', '0.50'),
    );
    const result = uk([buy('2024-05-01', 'ETH', '10', '20000'), ...gas]);
    expect(new Set(result.disposals.map((d) => d.cost))).toEqual(new Set(['0.4']));
    const summary = await rowsOf(result, 'tax_summary', 'GBP');
    const net = summary.find((row) => row[5] === 'Net gain or loss');
    expect(net?.[7]).toBe('4.00');
  });

  it('returns a same-day part and a pool part with their units’ share of the proceeds, netting +£0.10', () => {
    const result = uk([
      buy('2024-05-01', 'PEPE', '100', '4.00'),
      buy('2024-06-03T09:00:00.000Z', 'PEPE', '5', '0.20'),
      sell('2024-06-03T10:00:00.000Z', 'PEPE', '10', '0.50'),
    ]);
    // Same day: 5 for £0.20; pool: 4.00 × 5 / 100 = £0.20; proceeds 0.50 by units: 0.25 each.
    expect(lines(result)).toEqual([
      ['same-day', '5', '0.25', '0.2', '0.05'],
      ['section-104', '5', '0.25', '0.2', '0.05'],
    ]);
  });
});

describe('uk: gross proceeds, fees among the allowable costs (issue 24, item 4)', () => {
  it('returns the proceeds before the disposal fee and the fee in the costs; the threshold tested on gross proceeds', async () => {
    const result = uk([
      buy('2024-05-01', 'BTC', '2', '40000'),
      sell('2024-06-01', 'BTC', '1', '50005', '10'),
    ]);
    // Proceeds £50,005 (SA108 box 13.2 is gross); costs 40 000 × 1 / 2 + the £10 fee = £20,010.
    expect(lines(result)).toEqual([['section-104', '1', '50005', '20010', '29995']]);
    const summary = await rowsOf(result, 'tax_summary', 'GBP');
    const line = (item: string) => summary.find((row) => row[5] === item);
    expect(line('Cryptoassets: disposal proceeds')?.slice(4, 8)).toEqual([
      'SA108 box 13.2',
      'Cryptoassets: disposal proceeds',
      null,
      '50005.00',
    ]);
    expect(line('Cryptoassets: allowable costs (including purchase price)')?.[7]).toBe('20010.00');
    // £50,005 gross is above the £50,000 threshold (net of the fee it would be £49,995, below it).
    expect(line('Reporting threshold: disposal proceeds (reference)')?.[9]).toMatch(/are above it/);
  });
});

describe('uk: the 30 days after the period end (issue 24, item 3)', () => {
  const period = { start: '2024-04-05T23:00:00Z', end: '2025-04-05T23:00:00Z' };
  const history = () => [
    buy('2024-06-01', 'X', '1', '1000'),
    sell('2025-04-01', 'X', '1', '2000'),
    buy('2025-04-10', 'X', '1', '1600'),
  ];

  it('returns a 1 April sale matched with the 10 April purchase (gain £400), the reports kept to the period', async () => {
    // The history reaches 30 days past 5 April: through 5 May 2025 (London midnight after it).
    const result = uk(history(), { period, historyEnd: '2025-05-05T23:00:00Z' });
    expect(lines(result)).toEqual([['thirty-day', '1', '2000', '1600', '400']]);
    expect(result.warnings).toEqual([]);
    // The 10 April purchase is not in the period: not in the pool history, nor in the roll-forward.
    expect(result.poolHistory.map((p) => p.date)).toEqual(['2024-06-01']);
    expect(
      result.rollForward.map((l) => [l.opening.quantity, l.acquired.quantity, l.closing.quantity]),
    ).toEqual([['0', '1', '1']]);
    const holdings = await rowsOf(result, 'holdings', 'GBP');
    // The cost check is money, shown at the minor unit.
    const checks = holdings.map((row) => [row[15], row[16]]);
    expect(checks).toEqual([['0', '0.00']]);
  });

  it('returns a thirty-day-window warning naming the data’s last day when the 30 days are not over', () => {
    // Exported on 8 April 2025: the history is complete through 7 April only.
    const result = uk(history().slice(0, 2), { period, historyEnd: '2025-04-08T00:00:00Z' });
    expect(lines(result)).toEqual([['section-104', '1', '2000', '1000', '1000']]);
    expect(result.warnings.map((w) => [w.kind, w.txId])).toEqual([
      ['thirty-day-window', result.disposals[0]?.disposedTxId],
    ]);
    expect(result.warnings[0]?.message).toMatch(
      /run to 2025-05-01, past the data this run had \(through 2025-04-07\)/,
    );
  });
});

describe('uk: SA108 boxes and reference lines (issue 24, item 9)', () => {
  it('returns the 2024/25 cryptoasset boxes, the split at 30 October 2024, the £3,000 exempt amount and the £50,000 threshold', async () => {
    const result = uk([
      buy('2024-05-01', 'ETH', '10', '20000'),
      // 29 October: 1 ETH (cost £2,000) for £2,500, a gain of £500, before the rate change.
      sell('2024-10-29', 'ETH', '1', '2500'),
      // 30 October: 1 ETH for £1,800, a loss of £200, from the rate change on.
      sell('2024-10-30', 'ETH', '1', '1800'),
      // 1 November: 1 ETH for £2,300, a gain of £300.
      sell('2024-11-01', 'ETH', '1', '2300'),
    ]);
    const table = gainsReports(result, { currency: 'GBP' }).find((t) => t.spec.name === 'tax_summary');
    const what = table?.spec.columns.findIndex((c) => c.header === 'What it is') ?? -1;
    const rows = (await rowsOf(result, 'tax_summary', 'GBP')).map((row) => [
      row[4],
      row[what],
      row[5],
      row[6] ?? row[7],
    ]);
    // Box 51 takes the calculator's result (a difference of tax): the split is its input, no box.
    const input = 'calculator input, not on the form';
    expect(rows).toEqual([
      ['SA108 box 13.1', 'on the form', 'Cryptoassets: number of disposals', '3'],
      ['SA108 box 13.2', 'on the form', 'Cryptoassets: disposal proceeds', '6600.00'],
      [
        'SA108 box 13.3',
        'on the form',
        'Cryptoassets: allowable costs (including purchase price)',
        '6000.00',
      ],
      ['SA108 box 13.4', 'on the form', 'Cryptoassets: gains in the year, before losses', '800.00'],
      ['SA108 box 13.5', 'on the form', 'Cryptoassets: losses in the year', '200.00'],
      ['', 'working, not on the form', 'Net gain or loss', '600.00'],
      ['', input, 'HMRC adjustment calculator input: gains before 30 October 2024', '500.00'],
      ['', input, 'HMRC adjustment calculator input: losses before 30 October 2024', '0.00'],
      ['', input, 'HMRC adjustment calculator input: gains from 30 October 2024', '300.00'],
      ['', input, 'HMRC adjustment calculator input: losses from 30 October 2024', '200.00'],
      ['', 'reference, not on the form', 'Annual exempt amount (reference)', '3000'],
      ['', 'reference, not on the form', 'Reporting threshold: disposal proceeds (reference)', '50000'],
    ]);
    expect(rows.flatMap((row) => (String(row[0]).includes('51') ? [row] : []))).toEqual([]);
  });

  it('returns the reference amounts in the note only, not compared, when the figures are not in pounds', async () => {
    const result = uk([buy('2025-05-01', 'ETH', '1', '2000'), sell('2025-06-01', 'ETH', '1', '60000')]);
    const table = gainsReports(result, { currency: 'USD' }).find((t) => t.spec.name === 'tax_summary');
    expect(table?.spec.columns.find((c) => c.key === 'amount')?.header).toBe('Amount (USD)');
    const rows = await rowsOf(result, 'tax_summary', 'USD');
    const threshold = rows.find((row) => row[5] === 'Reporting threshold: disposal proceeds (reference)');
    expect([threshold?.[7], threshold?.[9]]).toEqual([
      null,
      expect.stringMatching(/in GBP; the figures here are USD: not compared/),
    ]);
  });
});
