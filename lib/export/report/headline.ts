import Big from 'big.js';
import type { TableSource } from '../../domain/index.ts';

/** The figures a person opens a gains run for, per tax year of the period, as the reports show them. */
export interface HeadlineYear {
  taxYear: string;
  /** Net gain or loss of the year: the Gains summary's TOTAL rows (every term) added up. */
  netGain: string;
  /** Income of the year: the Income report's TOTAL row (`0` when there is none). */
  income: string;
  /** ISO 4217 code of both figures, or empty when the data's values are taken as they are. */
  currency: string;
}

/** The headline of a gains run: the tax years' figures and the warnings still open. */
export interface Headline {
  taxYears: HeadlineYear[];
  /** Rows of the Warnings table no adjustment resolves. */
  warningsOpen: number;
}

/**
 * The headline of a run from its tables, or `undefined` when it wrote no gains reports. Reads the
 * rounded tables (the figures a reader sees), so it agrees with the files to the last digit.
 */
export async function headlineFigures(
  tables: readonly TableSource[],
  warningsOpen: number,
): Promise<Headline | undefined> {
  const summary = tables.find((table) => table.spec.name === 'gains_summary');
  if (summary === undefined) return undefined;
  const years = new Map<string, { net: Big; income: Big; currency: string }>();
  // The figures keep the places of the rows they add (`100.10`, not `100.1`).
  let places = 0;
  const amount = (text: string | undefined): Big => {
    const value = text === undefined || text === '' ? '0' : text;
    places = Math.max(places, value.split('.')[1]?.length ?? 0);
    return new Big(value);
  };
  const yearOf = (taxYear: string, currency: string) => {
    const year = years.get(taxYear) ?? { net: new Big(0), income: new Big(0), currency };
    years.set(taxYear, year);
    return year;
  };
  for await (const row of totalRows(summary)) {
    const year = yearOf(row.tax_year ?? '', row.currency ?? '');
    year.net = year.net.plus(amount(row.net));
  }
  const income = tables.find((table) => table.spec.name === 'income');
  if (income !== undefined) {
    for await (const row of totalRows(income)) {
      const year = yearOf(row.tax_year ?? '', row.currency ?? '');
      year.income = year.income.plus(amount(row.value));
    }
  }
  return {
    taxYears: [...years].map(([taxYear, year]) => ({
      taxYear,
      netGain: year.net.toFixed(places),
      income: year.income.toFixed(places),
      currency: year.currency,
    })),
    warningsOpen,
  };
}

/** The TOTAL rows of a table (its `token` column says `TOTAL`), as records by column key. */
async function* totalRows(table: TableSource): AsyncGenerator<Record<string, string>> {
  const keys = table.spec.columns.map((column) => column.key);
  const token = keys.indexOf('token');
  for await (const row of table.rows()) {
    if (row[token] !== 'TOTAL') continue;
    yield Object.fromEntries(keys.map((key, i) => [key, row[i] ?? '']));
  }
}
