/**
 * The de rule set: private sales under § 23 EStG (FIFO, wallet by wallet by default; a sale more
 * than one year after the acquisition is not taxable but shown), the year's Freigrenze applied as
 * a limit (600 € through 2023, 1 000 € from 2024; § 23 Abs. 3 Satz 5 EStG), income from services
 * under § 22 Nr. 3 EStG with its 256 € limit, and the totals as they go onto Anlage SO.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import type { CanonicalTransaction } from '../domain/index.ts';
import { runGains } from './index.ts';
import { gainsReports } from './reports.ts';
import type { GainsResult } from './types.ts';

let counter = 0;
const at = (date: string) => (date.length === 10 ? `${date}T10:00:00.000Z` : date);

function buy(date: string, quantity: string, cost: string, account = 'A'): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `b${counter}`,
    date: at(date),
    accountId: account,
    valueCurrency: 'EUR',
    movements: [leg('EUR', `-${cost}`, `-${cost}`), leg('BTC', quantity, cost)],
  });
}

function sell(date: string, quantity: string, proceeds: string, account = 'A'): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `s${counter}`,
    date: at(date),
    accountId: account,
    valueCurrency: 'EUR',
    movements: [leg('BTC', `-${quantity}`, `-${proceeds}`), leg('EUR', proceeds, proceeds)],
  });
}

function reward(date: string, quantity: string, value: string): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `r${counter}`,
    date: at(date),
    category: 'staking',
    valueCurrency: 'EUR',
    movements: [leg('ETH', quantity, value)],
  });
}

const de = (history: CanonicalTransaction[]) => runGains(history, { taxRules: 'de' }).result;

/** The Anlage SO rows of one year: item → amount (or count). */
async function anlageSo(result: GainsResult, year: string): Promise<Map<string, string | null>> {
  const table = gainsReports(result).find((t) => t.spec.name === 'tax_summary');
  expect(table?.spec.title).toBe('Anlage SO');
  const keys = table?.spec.columns.map((c) => c.key) ?? [];
  const [item, number, amount] = ['item', 'number', 'amount'].map((key) => keys.indexOf(key)) as [
    number,
    number,
    number,
  ];
  const out = new Map<string, string | null>();
  for await (const row of table?.rows() ?? []) {
    if (row[0] === year) out.set(row[item] as string, row[amount] ?? row[number] ?? null);
  }
  return out;
}

describe('de rules: § 23 EStG private sales', () => {
  it('returns FIFO, the calendar year and the Berlin calendar; wallet by wallet by default', () => {
    const result = de([]);
    expect(result.options).toMatchObject({
      method: 'fifo',
      pooling: 'account',
      timeZone: 'Europe/Berlin',
      taxYearStart: { month: 1, day: 1 },
      longTermYears: 1,
    });
  });

  it('returns a sale exactly one year later as taxable and one a day later as exempt, by Berlin dates', () => {
    // Bought 2023-03-15T23:30Z = 16 March in Berlin: a sale on 16 March 2024 is exactly one year
    // (taxable), on 17 March 2024 more than one year (not taxable).
    const result = de([
      buy('2023-03-15T23:30:00.000Z', '2', '40000'),
      sell('2024-03-16', '1', '30000'),
      sell('2024-03-17', '1', '30000'),
    ]);
    expect(result.disposals.map((d) => [d.term, d.gain, d.taxYear])).toEqual([
      ['short', '10000', '2024'],
      ['long', '10000', '2024'],
    ]);
  });

  it('returns the earliest acquisition first (FIFO) and refuses another method', () => {
    const result = de([
      buy('2024-01-10', '1', '100'),
      buy('2024-02-10', '1', '300'),
      sell('2024-03-10', '1', '500'),
    ]);
    expect(result.disposals.map((d) => d.cost)).toEqual(['100']);
    expect(() => runGains([], { taxRules: 'de', method: 'hifo' })).toThrow(/method: de rules use FIFO/);
  });
});

describe('de rules: the Freigrenze is a limit, not an allowance', () => {
  it('returns nothing taxable for a 2024 net gain of 999.99 €, and all of it at 1 000 €', async () => {
    const below = await anlageSo(
      de([buy('2024-01-10', '1', '1000'), sell('2024-02-10', '1', '1999.99')]),
      '2024',
    );
    expect(below.get('§ 23 EStG: Gewinn/Verlust')).toBe('999.99');
    expect(below.get('§ 23 Abs. 3 Satz 5 EStG: Freigrenze')).toBe('1000');
    expect(below.get('§ 23 EStG: steuerpflichtig')).toBe('0');
    const at = await anlageSo(de([buy('2024-01-10', '1', '1000'), sell('2024-02-10', '1', '2000')]), '2024');
    expect(at.get('§ 23 EStG: steuerpflichtig')).toBe('1000');
  });

  it('returns the 600 € limit through 2023: 599 € not taxable, 600 € all taxable', async () => {
    const below = await anlageSo(
      de([buy('2023-01-10', '1', '1000'), sell('2023-02-10', '1', '1599')]),
      '2023',
    );
    expect(below.get('§ 23 Abs. 3 Satz 5 EStG: Freigrenze')).toBe('600');
    expect(below.get('§ 23 EStG: steuerpflichtig')).toBe('0');
    const at = await anlageSo(de([buy('2023-01-10', '1', '1000'), sell('2023-02-10', '1', '1600')]), '2023');
    expect(at.get('§ 23 EStG: steuerpflichtig')).toBe('600');
  });

  it('returns the year net of losses against the limit, and exempt sales shown apart', async () => {
    // Taxable: +1 500 − 700 = 800 < 1 000: nothing taxable. Held over a year: +5 000, shown, not counted.
    const rows = await anlageSo(
      de([
        buy('2022-12-01', '1', '10000'),
        buy('2024-01-10', '1', '1000'),
        buy('2024-01-11', '1', '1000'),
        sell('2024-03-01', '1', '15000'),
        sell('2024-03-02', '1', '2500'),
        sell('2024-03-03', '1', '300'),
      ]),
      '2024',
    );
    expect(rows.get('§ 23 EStG: sales held one year or less (lines)')).toBe('2');
    expect(rows.get('§ 23 EStG: Gewinn/Verlust')).toBe('800');
    expect(rows.get('§ 23 EStG: steuerpflichtig')).toBe('0');
    expect(rows.get('§ 23 EStG: sales held more than one year (lines)')).toBe('1');
    expect(rows.get('§ 23 EStG: Gewinn/Verlust held more than one year')).toBe('5000');
  });

  it('returns a net loss as declared (for the loss carried forward), not cut to zero', async () => {
    const rows = await anlageSo(de([buy('2024-01-10', '1', '1000'), sell('2024-02-10', '1', '400')]), '2024');
    expect(rows.get('§ 23 EStG: steuerpflichtig')).toBe('-600');
  });
});

describe('de rules: § 22 Nr. 3 EStG income and its 256 € limit', () => {
  it('returns staking rewards below 256 € as not taxable and from 256 € as taxable in full', async () => {
    const below = await anlageSo(
      de([reward('2024-05-01', '0.05', '150'), reward('2024-06-01', '0.03', '105.99')]),
      '2024',
    );
    expect(below.get('§ 22 Nr. 3 EStG: Einnahmen (staking, lending, rewards)')).toBe('255.99');
    expect(below.get('§ 22 Nr. 3 EStG: steuerpflichtig')).toBe('0');
    const at = await anlageSo(
      de([reward('2024-05-01', '0.05', '150'), reward('2024-06-01', '0.03', '106')]),
      '2024',
    );
    expect(at.get('§ 22 Nr. 3 EStG: Freigrenze')).toBe('256');
    expect(at.get('§ 22 Nr. 3 EStG: steuerpflichtig')).toBe('256');
  });
});

describe('de rules: § 22 Nr. 3 EStG Werbungskosten (issue 24, item 5)', () => {
  it('returns a € 260.00 staking reward with a € 5.00 fee as € 255 of Einkünfte, below the limit, the fee not in the lot', async () => {
    counter += 1;
    const withFee = tx({
      id: `r${counter}`,
      date: at('2024-05-01'),
      category: 'staking',
      valueCurrency: 'EUR',
      feeAmount: '5.00',
      feeCurrency: 'EUR',
      movements: [leg('ETH', '0.1', '260.00')],
    });
    const later = tx({
      id: 's-eth',
      date: at('2024-06-01'),
      valueCurrency: 'EUR',
      movements: [leg('ETH', '-0.1', '-300'), leg('EUR', '300', '300')],
    });
    const result = de([withFee, later]);
    // The limit applies to Einkünfte (receipts less Werbungskosten): 260 − 5 = 255 < 256.
    const rows = await anlageSo(result, '2024');
    expect(rows.get('§ 22 Nr. 3 EStG: Einnahmen (staking, lending, rewards)')).toBe('260');
    expect(rows.get('§ 22 Nr. 3 EStG: Werbungskosten')).toBe('5');
    expect(rows.get('§ 22 Nr. 3 EStG: Einkünfte')).toBe('255');
    expect(rows.get('§ 22 Nr. 3 EStG: steuerpflichtig')).toBe('0');
    // The fee is an expense of the income, not acquisition cost: the lot cost 260.
    expect(result.disposals.map((d) => d.cost)).toEqual(['260']);
  });
});

describe('de rules: a period of part of the year', () => {
  it('returns every Anlage SO row of a March export as covering only part of the calendar year', async () => {
    // March 2025 in Berlin: 2025-02-28T23:00Z up to 2025-03-31T22:00Z (CEST from 30 March).
    const result = runGains(
      [
        buy('2024-06-01', '1', '30000'),
        sell('2025-03-10', '0.5', '20000'),
        sell('2025-04-02', '0.5', '21000'),
      ],
      { taxRules: 'de', period: { start: '2025-02-28T23:00:00Z', end: '2025-03-31T22:00:00Z' } },
    ).result;
    const table = gainsReports(result).find((t) => t.spec.name === 'tax_summary');
    const rows: (string | null)[][] = [];
    for await (const row of table?.rows() ?? []) rows.push([...row]);
    expect([
      [...new Set(rows.map((row) => `${row[0]} ${row[3]}`))],
      rows.find((row) => row[5] === '§ 23 EStG: Veräußerungspreis')?.[7],
    ]).toEqual([['2025 2025-03-01 to 2025-03-31: only part of the tax year 2025'], '20000']);
  });
});

describe('de rules: the Anlage SO lines of the year (issue 39, item 8)', () => {
  /** The rows of `year` by form line: [what it is, item, number, amount, note]. */
  async function lines(result: GainsResult, year: string): Promise<(string | null)[][]> {
    const table = gainsReports(result).find((t) => t.spec.name === 'tax_summary');
    const keys = table?.spec.columns.map((c) => c.key) ?? [];
    const pick = ['form_line', 'what', 'item', 'number', 'amount', 'note'].map((key) => keys.indexOf(key));
    const out: (string | null)[][] = [];
    for await (const row of table?.rows() ?? [])
      if (row[0] === year) out.push(pick.map((i) => (row[i] ?? null) as string | null));
    return out;
  }

  it('returns Zeilen 41 to 43 (that, what and when was sold), Zeile 54 with the amount of Zeile 47, and no line range', async () => {
    // FIFO: the 1 March sale takes the 2022 lot (held longer: not in Zeilen 41 to 47); the sales of
    // 2 March and 20 April take the 10 January lot (1 000 a unit): 900 − 1 000 twice, −200.
    const rows = await lines(
      de([
        buy('2022-12-01', '1', '100'),
        buy('2024-01-10', '2', '2000'),
        sell('2024-03-01', '1', '1500'),
        sell('2024-03-02', '1', '900'),
        sell('2024-04-20', '1', '900'),
      ]),
      '2024',
    );
    const byLine = (line: string) => rows.find((row) => row[0] === line);
    expect([byLine('Anlage SO Zeile 41')?.[3], byLine('Anlage SO Zeile 41')?.[1]]).toEqual([
      '1',
      'on the form',
    ]);
    expect(byLine('Anlage SO Zeile 42')?.[5]).toMatch(
      /^enter: Virtuelle Währungen \/ sonstige Token \(BTC\)/,
    );
    expect(byLine('Anlage SO Zeile 43')?.[5]).toMatch(
      /^enter: angeschafft 10\.01\.2024, veräußert 02\.03\.2024 – 20\.04\.2024 /,
    );
    expect([byLine('Anlage SO Zeile 47')?.[4], byLine('Anlage SO Zeile 54')?.[4]]).toEqual(['-200', '-200']);
    expect(byLine('Anlage SO Zeile 54')?.[2]).toMatch(/Zeile 47 \(Feld 114; a spouse: Feld 115\)/);
    // Every line is one line of the form, in the form's order; what is not on it says what it is.
    const formLines = rows.filter((row) => row[0] !== '').map((row) => row[0]);
    expect(formLines).toEqual([
      'Anlage SO Zeile 41',
      'Anlage SO Zeile 42',
      'Anlage SO Zeile 43',
      'Anlage SO Zeile 44',
      'Anlage SO Zeile 45',
      'Anlage SO Zeile 46',
      'Anlage SO Zeile 47',
      'Anlage SO Zeile 54',
      'Anlage SO Zeile 10',
      'Anlage SO Zeile 11',
    ]);
    expect(rows.filter((row) => row[0] === '' && !String(row[1]).endsWith('not on the form'))).toEqual([]);
    expect(rows.filter((row) => /Zeilen/.test(String(row[0])))).toEqual([]);
  });

  it('returns Zeile 41 as 0 and Zeilen 42 and 43 empty in a year with no taxable sale', async () => {
    const rows = await lines(de([reward('2024-05-01', '0.05', '300')]), '2024');
    const zeile = (n: number) => rows.find((row) => row[0] === `Anlage SO Zeile ${n}`);
    expect([zeile(41)?.[3], zeile(42)?.[5], zeile(10)?.[3], zeile(11)?.[4]]).toEqual([
      '0',
      'no sale held one year or less in the year: Zeilen 41 to 47 stay empty',
      '1',
      '300',
    ]);
  });
});
