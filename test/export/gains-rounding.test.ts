/**
 * Rounding an accountant can add up (issue 14 item 2), checked from outside: random portfolios go
 * through the gains feed, every table is written by the CSV writer, read back with csv-parse and
 * added with big.js, against minor units written down here (USD 2, JPY 0, KWD 3) and the exact
 * companion files.
 */
import { PassThrough } from 'node:stream';
import BigFactory from 'big.js';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CanonicalTransaction, TableSource } from '../../lib/domain/index.ts';
import { createGainsFeed, parseExportRequest, periodRange, writeCsv } from '../../lib/export/index.ts';
import { leg, tx } from '../support/gains.ts';

const Big = BigFactory();
type Big = BigFactory.Big;
const HALF_EVEN = 2;
/** ISO 4217 minor units of the currencies generated (independent of the code under test). */
const DIGITS: Record<string, number> = { USD: 2, JPY: 0, KWD: 3 };

type CsvRow = Record<string, string>;

async function csvRows(table: TableSource): Promise<CsvRow[]> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeCsv(table, out);
  return parse(Buffer.concat(chunks).toString('utf8'), { columns: true, bom: true }) as CsvRow[];
}

const BASE = Date.parse('2024-11-01T00:00:00Z');
const HOUR = 3_600_000;
const account = fc.constantFrom('A', 'B');
const token = fc.constantFrom('ETH', 'BTC');
// Amounts and values with more decimals than any minor unit, so rounding has work to do.
const amount = fc.integer({ min: 1, max: 3_000_000 }).map((n) => (n / 1_000_000).toFixed(6));
const value = fc.integer({ min: 1, max: 90_000_000_000 }).map((n) => (n / 10_000).toFixed(4));
const step = fc.record({
  kind: fc.constantFrom('buy', 'buy', 'sell', 'sell', 'income'),
  account,
  token,
  amount,
  value,
  fee: fc.option(
    fc.integer({ min: 1, max: 99_999 }).map((n) => (n / 1000).toFixed(3)),
    { nil: null },
  ),
  hours: fc.integer({ min: 0, max: 24 * 500 }),
});
type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;

function history(steps: readonly Step[], currency: string): CanonicalTransaction[] {
  return steps
    .map((s, i) => {
      const date = new Date(BASE + s.hours * HOUR).toISOString();
      const common = {
        id: `t${i}`,
        date,
        accountId: s.account,
        valueCurrency: currency,
        feeCurrency: currency,
      };
      const fee = s.fee === null ? {} : { feeAmount: s.fee };
      if (s.kind === 'income') {
        return tx({ ...common, category: 'staking', movements: [leg(s.token, s.amount, s.value)] });
      }
      const sign = s.kind === 'buy' ? '' : '-';
      return tx({
        ...common,
        ...fee,
        movements: [
          leg(s.token, `${sign}${s.amount}`, `${sign}${s.value}`),
          leg(currency, `${s.kind === 'buy' ? '-' : ''}${s.value}`, null),
        ],
      });
    })
    .sort((a, b) => Date.parse(a.date) - Date.parse(b.date));
}

/** Every gains table of `txs` as CSV rows, by table name. */
async function gainsCsv(
  txs: readonly CanonicalTransaction[],
  gains: Record<string, unknown>,
): Promise<Record<string, CsvRow[]>> {
  // The data's currency is the figures' currency by choice (a us run checks for USD otherwise).
  const currency = txs[0]?.valueCurrency ?? null;
  const request = parseExportRequest({
    profile: 'p',
    period: '2025',
    reports: ['gains'],
    gains: { ...gains, currency },
  });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  for (const t of txs) feed.add(t.date.slice(0, 7), t);
  const tables: Record<string, CsvRow[]> = {};
  for (const table of feed.tables()) tables[table.spec.name] = await csvRows(table);
  return tables;
}

const sum = (values: readonly string[]) => values.reduce((total, v) => total.plus(v), new Big(0));
/** big.js's own half-even rounding to `digits`, without a minus on zero. */
function rounded(exact: string, digits: number): string {
  const text = new Big(exact).round(digits, HALF_EVEN).toFixed(digits);
  return /^-[0.]+$/.test(text) ? text.slice(1) : text;
}
const fixed = (v: Big, digits: number) => rounded(v.toFixed(), digits);

const portfolios = fc.record({
  steps: fc.array(step, { minLength: 1, maxLength: 40 }),
  currency: fc.constantFrom('USD', 'JPY', 'KWD'),
  gains: fc.constantFrom<Record<string, unknown>>(
    { method: 'fifo' },
    { method: 'average', pooling: 'account' },
    { taxRules: 'us', method: 'hifo' },
  ),
});

describe('gains money rounded once per line (CSV read back with csv-parse, added with big.js)', () => {
  it('shows every disposal line rounded half to even from its exact figures, its gain = proceeds − cost', async () => {
    await fc.assert(
      fc.asyncProperty(portfolios, async ({ steps, currency, gains }) => {
        const digits = DIGITS[currency] as number;
        const tables = await gainsCsv(history(steps, currency), gains);
        const shown = tables.disposals ?? [];
        const exact = tables.disposals_exact ?? [];
        expect(shown.length).toBe(exact.length);
        shown.forEach((row, i) => {
          const e = exact[i] as CsvRow;
          expect([row.proceeds, row.cost_basis, row.gain_loss]).toEqual([
            rounded(e.proceeds as string, digits),
            rounded(e.cost_basis as string, digits),
            fixed(new Big(row.proceeds as string).minus(row.cost_basis as string), digits),
          ]);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('shows every cost of the holdings roll-forward rounded half to even from the exact companion, quantities untouched', async () => {
    await fc.assert(
      fc.asyncProperty(portfolios, async ({ steps, currency, gains }) => {
        const digits = DIGITS[currency] as number;
        const tables = await gainsCsv(history(steps, currency), gains);
        const shown = tables.holdings ?? [];
        const exact = tables.holdings_exact ?? [];
        expect([shown.length, shown.length === exact.length]).toEqual([expect.any(Number), true]);
        shown.forEach((row, i) => {
          const e = exact[i] as CsvRow;
          const costs = Object.keys(row).filter((key) => key.endsWith('_cost'));
          const quantities = Object.keys(row).filter((key) => key.endsWith('_quantity'));
          expect([costs.length, costs.map((key) => row[key]), quantities.map((key) => row[key])]).toEqual([
            7,
            costs.map((key) => rounded(e[key] as string, digits)),
            quantities.map((key) => e[key]),
          ]);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('makes every total of the gains summary the sum of the rounded lines shown', async () => {
    await fc.assert(
      fc.asyncProperty(portfolios, async ({ steps, currency, gains }) => {
        const digits = DIGITS[currency] as number;
        const tables = await gainsCsv(history(steps, currency), gains);
        const lines = tables.disposals ?? [];
        const summary = tables.gains_summary ?? [];
        const cents = new RegExp(digits === 0 ? '^-?\\d+$' : `^-?\\d+\\.\\d{${digits}}$`);
        for (const row of summary) {
          const group = row.token === 'TOTAL' ? summary.filter((r) => r.token !== 'TOTAL') : lines;
          const mine = group.filter(
            (r) =>
              r.tax_year === row.tax_year &&
              r.term === row.term &&
              (row.token === 'TOTAL' || r.token === row.token),
          );
          const money = (r: CsvRow, key: string) => r[key] as string;
          const expected =
            row.token === 'TOTAL'
              ? ['proceeds', 'cost', 'gains', 'losses', 'net'].map((k) => sum(mine.map((r) => money(r, k))))
              : [
                  sum(mine.map((r) => money(r, 'proceeds'))),
                  sum(mine.map((r) => money(r, 'cost_basis'))),
                  sum(mine.map((r) => money(r, 'gain_loss')).filter((g) => new Big(g).gt(0))),
                  sum(mine.map((r) => money(r, 'gain_loss')).filter((g) => !new Big(g).gt(0))),
                  sum(mine.map((r) => money(r, 'gain_loss'))),
                ];
          const cells = [row.proceeds, row.cost, row.gains, row.losses, row.net] as string[];
          expect(cells.every((cell) => cents.test(cell))).toBe(true);
          expect(cells).toEqual(expected.map((v) => fixed(v, digits)));
          expect(row.net).toBe(fixed(new Big(row.proceeds as string).minus(row.cost as string), digits));
        }
      }),
      { numRuns: 60 },
    );
  });

  it('makes the income TOTAL the sum of the rows shown, each within half a unit per receipt of the exact value', async () => {
    await fc.assert(
      fc.asyncProperty(portfolios, async ({ steps, currency, gains }) => {
        const digits = DIGITS[currency] as number;
        const tables = await gainsCsv(history(steps, currency), gains);
        const income = tables.income ?? [];
        const exact = tables.income_exact ?? [];
        const groups = income.filter((r) => r.token !== 'TOTAL');
        for (const total of income.filter((r) => r.token === 'TOTAL')) {
          const year = groups.filter((r) => r.tax_year === total.tax_year);
          expect([total.value, total.receipts]).toEqual([
            fixed(sum(year.map((r) => r.value as string)), digits),
            String(year.reduce((n, r) => n + Number(r.receipts), 0)),
          ]);
        }
        groups.forEach((row, i) => {
          const e = exact[i] as CsvRow;
          const off = new Big(row.value as string).minus(e.value as string).abs();
          const halfUnit = new Big(5).times(new Big(10).pow(-(digits + 1)));
          expect(off.lte(halfUnit.times(row.receipts as string))).toBe(true);
        });
      }),
      { numRuns: 40 },
    );
  });

  it('makes each Form 8949 box TOTAL and its Schedule D line the sums of the rows shown, each row (h) = (d) − (e)', async () => {
    await fc.assert(
      fc.asyncProperty(portfolios, async ({ steps, currency }) => {
        const digits = DIGITS[currency] as number;
        const tables = await gainsCsv(history(steps, currency), { taxRules: 'us' });
        const form = tables['form-8949'] ?? [];
        const scheduleD = tables['schedule-d'] ?? [];
        const totals = form.filter((r) => (r.description ?? '').startsWith('TOTAL'));
        const rows = form.filter((r) => !(r.description ?? '').startsWith('TOTAL'));
        for (const row of rows) {
          expect(row.gain).toBe(fixed(new Big(row.proceeds as string).minus(row.cost as string), digits));
        }
        for (const total of totals) {
          const box = rows.filter((r) => r.tax_year === total.tax_year && r.box === total.box);
          const sums = ['proceeds', 'cost', 'gain'].map((k) =>
            fixed(sum(box.map((r) => r[k] as string)), digits),
          );
          expect([total.proceeds, total.cost, total.gain]).toEqual(sums);
          const line = scheduleD.find((r) => r.tax_year === total.tax_year && r.box === total.box);
          expect([line?.proceeds, line?.cost, line?.gain, line?.rows]).toEqual([...sums, String(box.length)]);
        }
        // Every disposal line is on the form: its totals are those of the gains summary's TOTAL rows.
        const summaryTotals = (tables.gains_summary ?? []).filter((r) => r.token === 'TOTAL');
        expect(totals.map((t) => [t.part === 'I' ? 'short' : 'long', t.proceeds, t.cost, t.gain])).toEqual(
          summaryTotals.map((t) => [t.term, t.proceeds, t.cost, t.net]),
        );
      }),
      { numRuns: 40 },
    );
  });
});
