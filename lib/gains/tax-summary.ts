/**
 * The tax summary of a rule set (`uk`: SA108's cryptoasset boxes, `de`: the Anlage SO lines): one
 * row per form line and tax year, with the form's own line, a count or an amount, and a note. The
 * amounts are sums of the rounded lines shown elsewhere; reference figures of the law (allowances,
 * limits, thresholds) are in the law's currency and are left out of the amount column, and not
 * applied, when the figures are in another currency.
 */
import { type Column, compareText, type Row, type TableSpec } from '../domain/index.ts';
import type { Coverage } from './coverage.ts';
import type { GainsMoney } from './rounding.ts';
import type { DisposalLine, IncomeLine } from './types.ts';

/** The totals a rule set's return asks for, built line by line. */
export interface TaxSummary {
  /** The table's spec, its amount header naming the currency of `money` (else the rule set's). */
  spec(money?: GainsMoney): TableSpec;
  add(line: DisposalLine): void;
  addIncome(line: IncomeLine): void;
  /** The rows, amounts as `money` shows them. */
  rows(money?: GainsMoney): Row[];
}

/**
 * What a tax summary's line is: `form`, a figure that goes on the form's line or box; `input`, a
 * figure another tool asks for (HMRC's adjustment calculator), not on the form; `reference`, a
 * figure of the law (an allowance, a limit); `working`, a figure worked out on the way (a count,
 * a net) that is not itself on the form.
 */
export type LineKind = 'form' | 'input' | 'reference' | 'working';

/** The words of each {@link LineKind} in the `What it is` column. */
export const LINE_KIND_WORDS: Readonly<Record<LineKind, string>> = {
  form: 'on the form',
  input: 'calculator input, not on the form',
  reference: 'reference, not on the form',
  working: 'working, not on the form',
};

/**
 * One line of a tax summary: the form's line (empty when it is not on the form), what it is,
 * item, count or amount, note.
 */
export interface SummaryLine {
  form: string;
  kind: LineKind;
  item: string;
  number?: number;
  amount?: string | null;
  note: string;
}

/** Token (or item) cell of the total rows of the summaries. */
export const TOTAL = 'TOTAL';

const text = (key: string, header: string): Column => ({ key, header, kind: 'text' });

/** Columns of a tax summary whose amounts are in `currency` (null: unknown). */
export function taxSummaryColumns(covers: Column, currency: string | null): Column[] {
  return [
    text('tax_year', 'Tax year'),
    text('first_day', 'First day'),
    text('last_day', 'Last day'),
    covers,
    {
      ...text('form_line', 'Form line'),
      description:
        'the line or box of the form the figure goes in; empty when it is not on the form (What it is says what it is)',
    },
    text('item', 'Item'),
    {
      key: 'number',
      header: 'Number',
      kind: 'integer',
      description: 'a count (of disposals, sales, receipts)',
    },
    {
      key: 'amount',
      header: currency === null ? 'Amount' : `Amount (${currency})`,
      kind: 'decimal',
      description: currency === null ? 'an amount of money' : `an amount of money in ${currency}`,
    },
    {
      ...text('what', 'What it is'),
      description:
        "on the form (a line or box to fill), or not on the form: a calculator input (asked by another tool, e.g. HMRC's adjustment calculator), a reference (a figure of the law) or working (a count or net worked out on the way)",
    },
    { ...text('note', 'Note'), wrap: true, width: 48 },
  ];
}

/** The currency a summary's amounts are in: the reports', else (exact figures) the rule set's. */
export function summaryCurrency(money: GainsMoney, rules: string | null): string | null {
  return money.currency ?? rules;
}

/** A reference figure of the law in `currency` (the law's): its amount, or left out when the figures are in another currency. */
export function reference(
  amount: number | null,
  lawCurrency: string,
  figures: string | null,
): { amount: string | null; applies: boolean } {
  if (amount === null) return { amount: null, applies: false };
  const applies = figures === null || figures === lawCurrency;
  return { amount: applies ? String(amount) : null, applies };
}

/** Rows of every tax year, in order: each year's lines with its coverage. */
export function yearRows(
  coverage: Coverage,
  years: Iterable<string>,
  linesOf: (label: string) => SummaryLine[],
): Row[] {
  const rows: Row[] = [];
  for (const label of [...years].sort(compareText)) {
    const { first, last, text: covers } = coverage.of(label);
    for (const line of linesOf(label)) {
      rows.push([
        label,
        first,
        last,
        covers,
        line.form,
        line.item,
        line.number === undefined ? null : String(line.number),
        line.amount ?? null,
        LINE_KIND_WORDS[line.kind],
        line.note,
      ]);
    }
  }
  return rows;
}
