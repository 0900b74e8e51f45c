/**
 * Form 8949 and Schedule D of a `us` run: the check box per tax year and broker reporting (2025
 * Form 8949 instructions: boxes G to L for digital assets; before 2025, A to F), one row per
 * disposal with its lots gathered (VARIOUS dates), a TOTAL per box, and the Schedule D lines.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../../test/support/gains.ts';
import { Big, type CanonicalTransaction, type Row } from '../../../domain/index.ts';
import {
  type Coverage,
  coverageOptions,
  createCoverage,
  gainsMoney,
  roundDisposal,
  runGains,
} from '../../index.ts';
import type { DisposalLine } from '../../types.ts';
import { createForm8949, form8949Box } from './form8949.ts';

function trade(id: string, date: string, quantity: string, value: string): CanonicalTransaction {
  const out = quantity.startsWith('-');
  return tx({
    id,
    date: `${date}T15:00:00.000Z`,
    movements: [leg('ETH', quantity, out ? `-${value}` : value), leg('USD', out ? value : `-${value}`, null)],
  });
}

async function formOf(
  lines: readonly DisposalLine[],
  reporting: Parameters<typeof createForm8949>[0]['reporting'] = 'none',
  coverage?: Coverage,
) {
  const money = gainsMoney('USD');
  const form = createForm8949({ timeZone: 'America/New_York', reporting, ...(coverage ? { coverage } : {}) });
  const shown = lines.map((line) => roundDisposal(line, money));
  for (const line of shown) form.add(line);
  const [formTable, scheduleD] = form.tables(async function* () {
    yield* shown;
  }, money);
  const read = async (table: typeof formTable) => {
    const rows: Row[] = [];
    for await (const row of table?.rows() ?? []) rows.push(row);
    return rows;
  };
  return { form: await read(formTable), scheduleD: await read(scheduleD), spec: formTable?.spec };
}

describe('form8949Box', () => {
  it('returns the digital-asset boxes from 2025 and the 1099-B boxes before, with their Schedule D lines', () => {
    const pick = (year: number, reporting: Parameters<typeof form8949Box>[2]) =>
      (['short', 'long'] as const).map((term) => {
        const box = form8949Box(year, term, reporting);
        return `${box.part}:${box.box}:${box.line}`;
      });
    expect({
      2024: [pick(2024, 'basis-reported'), pick(2024, 'basis-not-reported'), pick(2024, 'none')],
      2025: [pick(2025, 'basis-reported'), pick(2025, 'basis-not-reported'), pick(2025, 'none')],
    }).toEqual({
      2024: [
        ['I:A:1b', 'II:D:8b'],
        ['I:B:2', 'II:E:9'],
        ['I:C:3', 'II:F:10'],
      ],
      2025: [
        ['I:G:1b', 'II:J:8b'],
        ['I:H:2', 'II:K:9'],
        ['I:I:3', 'II:L:10'],
      ],
    });
    // The captions as the forms print them (f8949 2025 and 2024, see README.md in this folder).
    expect(
      (['basis-reported', 'basis-not-reported', 'none'] as const).flatMap((reporting) => [
        form8949Box(2025, 'short', reporting).title,
        form8949Box(2024, 'long', reporting).title,
      ]),
    ).toEqual([
      'Short-term transactions reported on Form(s) 1099-DA showing basis was reported to the IRS',
      'Long-term transactions reported on Form(s) 1099-B showing basis was reported to the IRS',
      'Short-term transactions reported on Form(s) 1099-DA showing basis was not reported to the IRS',
      "Long-term transactions reported on Form(s) 1099-B showing basis wasn't reported to the IRS",
      'Short-term digital asset transactions not reported to you on Form 1099-DA or Form 1099-B',
      'Long-term transactions not reported to you on Form 1099-B',
    ]);
  });
});

describe('createForm8949', () => {
  it('returns one row per disposal: lots of different days as VARIOUS, Part I then Part II, a TOTAL per box', async () => {
    // Lots of 1 ETH on 2024-01-10 (100), 2024-03-01 (200) and 2024-09-01 (300). Sold 2025-02-01:
    // 1.5 ETH for 900.006 (the 2024-01-10 lot, long, and half the 2024-03-01 lot, short); then
    // 1 ETH for 400 on 2025-02-15 (the rest of the March lot and half the September one, both short).
    const { result } = runGains(
      [
        trade('b1', '2024-01-10', '1', '100'),
        trade('b2', '2024-03-01', '1', '200'),
        trade('b3', '2024-09-01', '1', '300'),
        trade('s1', '2025-02-01', '-1.5', '900.006'),
        trade('s2', '2025-02-15', '-1', '400'),
      ],
      { taxRules: 'us', timeZone: 'America/New_York', period: { start: '2025-01-01T05:00:00Z' } },
    );
    const { form, scheduleD } = await formOf(
      result.disposals,
      'none',
      createCoverage(coverageOptions(result.options)),
    );
    expect(form).toEqual([
      // s1's short part: 0.5 of b2 for 300.002 (a third of 900.006), cost 100.
      [
        '2025',
        'I',
        'I',
        '0.5 ETH (sale transaction ID s1)',
        '03/01/2024',
        '02/01/2025',
        '300.00',
        '100.00',
        null,
        null,
        '200.00',
        'A',
        's1',
        null,
      ],
      [
        '2025',
        'I',
        'I',
        '1 ETH (sale transaction ID s2)',
        'VARIOUS',
        '02/15/2025',
        '400.00',
        '250.00',
        null,
        null,
        '150.00',
        'A',
        's2',
        null,
      ],
      [
        '2025',
        'I',
        'I',
        'TOTAL box I (Schedule D line 3)',
        null,
        null,
        '700.00',
        '350.00',
        null,
        '0.00',
        '350.00',
        null,
        null,
        '2025-01-01 to 2025-12-31: the whole tax year 2025',
      ],
      [
        '2025',
        'II',
        'L',
        '1 ETH (sale transaction ID s1)',
        '01/10/2024',
        '02/01/2025',
        '600.00',
        '100.00',
        null,
        null,
        '500.00',
        'A',
        's1',
        null,
      ],
      [
        '2025',
        'II',
        'L',
        'TOTAL box L (Schedule D line 10)',
        null,
        null,
        '600.00',
        '100.00',
        null,
        '0.00',
        '500.00',
        null,
        null,
        '2025-01-01 to 2025-12-31: the whole tax year 2025',
      ],
    ]);
    // Then lines 7 (net short term: 350), 15 (net long term: 500) and 16 (350 + 500), column (h) only.
    expect(scheduleD.map((row) => [row[0], row[1], row[2], row[4], row[5], row[6], row[7], row[8]])).toEqual([
      ['2025', '3', 'I', '700.00', '350.00', '0.00', '350.00', '2'],
      ['2025', '10', 'L', '600.00', '100.00', '0.00', '500.00', '1'],
      ['2025', '7', null, null, null, null, '350.00', null],
      ['2025', '15', null, null, null, null, '500.00', null],
      ['2025', '16', null, null, null, null, '850.00', null],
    ]);
    expect(scheduleD.slice(2).map((row) => String(row[3]).split(':')[0])).toEqual([
      'Net short-term capital gain or (loss)',
      'Net long-term capital gain or (loss)',
      'Combine lines 7 and 15. A gain goes on Form 1040, line 7a; a loss goes to line 21 (at most $3,000, $1,500 if married filing separately)',
    ]);
  });

  it('returns Schedule D lines 7, 15 and 16 for each tax year: a short-term loss against a long-term gain, and a year with no long term', async () => {
    const { result } = runGains(
      [
        trade('b1', '2022-05-01', '1', '100'),
        trade('b2', '2024-02-01', '1', '400'),
        // 2024: 375 each; b1 long (375 − 100 = +275), b2 short (375 − 400 = −25).
        trade('s1', '2024-03-01', '-2', '750'),
        trade('b3', '2025-01-02', '1', '100'),
        // 2025: b3 short (80 − 100 = −20), nothing long.
        trade('s2', '2025-03-01', '-1', '80'),
      ],
      { taxRules: 'us', pooling: 'wallet-from-2025' },
    );
    const { scheduleD } = await formOf(result.disposals, 'none');
    const totals = scheduleD
      .filter((row) => row[2] === null)
      .map((row) => `${row[0]} line ${row[1]}: ${row[7]}`);
    expect(totals).toEqual([
      '2024 line 7: -25.00',
      '2024 line 15: 275.00',
      '2024 line 16: 250.00',
      '2025 line 7: -20.00',
      '2025 line 15: 0.00',
      '2025 line 16: -20.00',
    ]);
  });

  it('returns boxes C and F for a tax year before 2025 and I from 2025; A, D and G when a broker reported the basis', async () => {
    const { result } = runGains(
      [
        trade('b1', '2022-05-01', '1', '100'),
        trade('b2', '2024-02-01', '1', '100'),
        trade('s1', '2024-03-01', '-2', '500'),
        trade('b3', '2025-01-02', '1', '100'),
        trade('s2', '2025-03-01', '-1', '150'),
      ],
      { taxRules: 'us', pooling: 'wallet-from-2025' },
    );
    const boxes = async (reporting: Parameters<typeof form8949Box>[2]) =>
      (await formOf(result.disposals, reporting)).scheduleD
        .filter((row) => row[2] !== null)
        .map((row) => `${row[0]} ${row[2]} line ${row[1]}`);
    // s1 (2024) takes b1 (held since 2022: long) and b2 (short); s2 (2025) takes b3 (short).
    expect([await boxes('none'), await boxes('basis-reported')]).toEqual([
      ['2024 C line 3', '2024 F line 10', '2025 I line 3'],
      ['2024 A line 1b', '2024 D line 8b', '2025 G line 1b'],
    ]);
  });

  it('says on each TOTAL row and Schedule D line that a period of one month covers only part of the tax year', async () => {
    // January 2025 in New York: 2025-01-01T05:00Z up to 2025-02-01T05:00Z, a month of the calendar tax year.
    const { result } = runGains(
      [
        trade('b1', '2024-06-01', '2', '100'),
        trade('s1', '2025-01-20', '-1', '80'),
        trade('s2', '2025-02-03', '-1', '90'),
      ],
      {
        taxRules: 'us',
        timeZone: 'America/New_York',
        period: { start: '2025-01-01T05:00:00Z', end: '2025-02-01T05:00:00Z' },
      },
    );
    const { form, scheduleD } = await formOf(
      result.disposals,
      'none',
      createCoverage(coverageOptions(result.options)),
    );
    const part = '2025-01-01 to 2025-01-31: only part of the tax year 2025';
    expect([form.map((row) => [row[3], row.at(-1)]), scheduleD.map((row) => [row[1], row.at(-1)])]).toEqual([
      [
        ['1 ETH (sale transaction ID s1)', null],
        ['TOTAL box I (Schedule D line 3)', part],
      ],
      [
        ['3', part],
        ['7', part],
        ['15', part],
        ['16', part],
      ],
    ]);
  });

  it('returns one box per broker reporting in one run: an exchange reporting proceeds only (H) and a self-custody wallet (I), each tying to its Schedule D line', async () => {
    // Before: one box for the whole run; an object per account was not accepted at all.
    const inAccount = (account: string, t: CanonicalTransaction) => ({ ...t, accountId: account });
    const { result } = runGains(
      [
        inAccount('exchange', trade('b1', '2025-01-05', '2', '200.10')),
        inAccount('ledger', trade('b2', '2025-01-06', '3', '330.33')),
        inAccount('exchange', trade('s1', '2025-03-01', '-1', '150.05')),
        inAccount('ledger', trade('s2', '2025-03-02', '-2', '250.25')),
        inAccount('exchange', trade('s3', '2025-04-01', '-1', '99.99')),
        inAccount('ledger', trade('s4', '2025-04-02', '-1', '130')),
      ],
      { taxRules: 'us', period: { end: '2026-01-01T00:00:00Z' } },
    );
    const { form, scheduleD } = await formOf(result.disposals, {
      default: 'none',
      accounts: { exchange: 'basis-not-reported' },
    });
    const boxLines = scheduleD.filter((row) => row[2] !== null);
    expect(boxLines.map((row) => `${row[0]} ${row[2]} line ${row[1]} rows ${row[8]}`)).toEqual([
      '2025 H line 2 rows 2',
      '2025 I line 3 rows 2',
    ]);
    for (const line of boxLines) {
      const rows = form.filter((row) => row[2] === line[2] && !String(row[3]).startsWith('TOTAL'));
      const total = form.find((row) => row[2] === line[2] && String(row[3]).startsWith('TOTAL'));
      expect(new Set(rows.map((row) => row[11]))).toEqual(new Set([line[2] === 'H' ? 'exchange' : 'ledger']));
      // (d), (e), (h): the rows add up to the TOTAL row, which is the Schedule D line.
      for (const [column, scheduleColumn] of [
        [6, 4],
        [7, 5],
        [10, 7],
      ] as const) {
        const sum = rows.reduce((acc, row) => acc.plus(String(row[column])), new Big(0)).toFixed(2);
        expect([total?.[column], line[scheduleColumn]]).toEqual([sum, sum]);
      }
    }
  });

  it('leaves (b) empty for a disposal no lot covered (zero basis)', async () => {
    const { result } = runGains([trade('s1', '2025-03-01', '-1', '150')], { taxRules: 'us' });
    const { form } = await formOf(result.disposals);
    expect(form[0]?.slice(3, 8)).toEqual([
      '1 ETH (sale transaction ID s1)',
      null,
      '03/01/2025',
      '150.00',
      '0.00',
    ]);
  });
});
