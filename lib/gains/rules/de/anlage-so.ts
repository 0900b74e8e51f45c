/**
 * de: the Anlage SO lines of each calendar year: private sales of virtual currencies and other
 * tokens (§ 23 EStG, Zeilen 41–47, the Zeile 47 amount carried to Zeile 54) with the year's
 * Freigrenze, the sales held longer (not taxable, shown), and income from services (§ 22 Nr. 3
 * EStG: Zeile 10 and Zeile 11, staking, lending, rewards) as Einnahmen less Werbungskosten, with
 * its 256 € limit. The limits are in euros: with figures in another currency they are shown in the
 * note and not applied. Sources: docs/reference/tax-forms.md.
 */
import { type Big, type Row, ZERO } from '../../../domain/index.ts';
import { COVERS_COLUMN, type Coverage } from '../../coverage.ts';
import { EXACT_MONEY, type GainsMoney } from '../../rounding.ts';
import {
  reference,
  type SummaryLine,
  summaryCurrency,
  type TaxSummary,
  taxSummaryColumns,
  yearRows,
} from '../../tax-summary.ts';
import { localDate } from '../../tax-year.ts';
import type { DisposalLine } from '../../types.ts';

/** The zone of the German rules' days (the dates of Zeile 43). */
const BERLIN = 'Europe/Berlin';

/** The private-sale limit (Freigrenze, § 23 Abs. 3 Satz 5 EStG) of a tax year: 600 € through 2023, 1 000 € from 2024. */
export function deSaleLimit(year: number): number {
  return year >= 2024 ? 1000 : 600;
}

/** The limit (Freigrenze) of § 22 Nr. 3 EStG income: Einkünfte of less than 256 € a year are tax-free. */
export const DE_SERVICES_LIMIT = 256;

interface Sales {
  lines: number;
  proceeds: Big;
  cost: Big;
  net: Big;
  tokens: Set<string>;
  /** First and last instants of the lots acquired and of the sales (Zeile 43). */
  acquired: Span;
  sold: Span;
}

interface Span {
  first: number | null;
  last: number | null;
}

interface DeYear {
  taxable: Sales;
  exempt: Sales;
  receipts: number;
  income: Big;
  expenses: Big;
}

const sales = (): Sales => ({
  lines: 0,
  proceeds: ZERO,
  cost: ZERO,
  net: ZERO,
  tokens: new Set(),
  acquired: { first: null, last: null },
  sold: { first: null, last: null },
});

function widen(span: Span, at: number | null): void {
  if (at === null) return;
  if (span.first === null || at < span.first) span.first = at;
  if (span.last === null || at > span.last) span.last = at;
}

function addSale(target: Sales, line: DisposalLine): void {
  target.lines += 1;
  target.proceeds = target.proceeds.plus(line.proceeds);
  target.cost = target.cost.plus(line.cost);
  target.net = target.net.plus(line.gain);
  target.tokens.add(line.token);
  widen(target.acquired, line.acquiredAt);
  widen(target.sold, line.disposedAt);
}

/** `2024-03-05` → `05.03.2024`, as the form writes dates. */
function germanDate(ms: number): string {
  const [year, month, day] = localDate(ms, BERLIN).split('-');
  return `${day}.${month}.${year}`;
}

/** A span of days in words, `05.03.2024 – 30.12.2024` (one date when the span is one day). */
function spanWords(span: Span): string {
  if (span.first === null || span.last === null) return 'unknown (no lot found: see Warnings)';
  const [first, last] = [germanDate(span.first), germanDate(span.last)];
  return first === last ? first : `${first} – ${last}`;
}

/** The tokens sold, for Zeile 42: the first ten by name, then how many more. */
function tokenWords(tokens: ReadonlySet<string>): string {
  const sorted = [...tokens].sort();
  const shown = sorted.slice(0, 10).join(', ');
  return sorted.length > 10 ? `${shown} and ${sorted.length - 10} more` : shown;
}

/** A limit, not an allowance: below it nothing is taxable, from it all is; a loss stays declared. */
function afterLimit(net: Big, limit: number): Big {
  return net.gte(limit) || net.lt(0) ? net : ZERO;
}

/** Germany: per calendar year, the lines of Anlage SO. */
export function createAnlageSoSummary(coverage: Coverage): TaxSummary {
  const years = new Map<string, DeYear>();
  const yearOf = (label: string) => {
    let year = years.get(label);
    if (year === undefined) {
      year = { taxable: sales(), exempt: sales(), receipts: 0, income: ZERO, expenses: ZERO };
      years.set(label, year);
    }
    return year;
  };
  return {
    spec: (money = EXACT_MONEY) => ({
      name: 'tax_summary',
      title: 'Anlage SO',
      description:
        'the Anlage SO lines of each tax year, one a row: the private sales of § 23 EStG (held one year or less, with the Freigrenze) and the income of § 22 Nr. 3 EStG with its Werbungskosten',
      columns: taxSummaryColumns(COVERS_COLUMN, summaryCurrency(money, 'EUR')),
    }),
    add(line) {
      const year = yearOf(line.taxYear);
      addSale(line.term === 'long' ? year.exempt : year.taxable, line);
    },
    addIncome(line) {
      const year = yearOf(line.taxYear);
      year.receipts += 1;
      year.income = year.income.plus(line.value);
      year.expenses = year.expenses.plus(line.expenses ?? 0);
    },
    rows(money = EXACT_MONEY): Row[] {
      const currency = summaryCurrency(money, 'EUR');
      return yearRows(coverage, years.keys(), (label) => [
        ...saleLines(Number(label.slice(0, 4)), years.get(label) as DeYear, money, currency),
        ...serviceLines(years.get(label) as DeYear, money, currency),
      ]);
    },
  };
}

/** The note of a limit shown in euros beside figures in another currency. */
const notApplied = (currency: string | null) =>
  currency !== null && currency !== 'EUR'
    ? ` Not applied: the figures here are ${currency}, the limit is in EUR (convert before comparing).`
    : '';

function saleLines(year: number, y: DeYear, money: GainsMoney, currency: string | null): SummaryLine[] {
  const show = money.showBig;
  const limit = reference(deSaleLimit(year), 'EUR', currency);
  const taxable = limit.applies ? show(afterLimit(y.taxable.net, deSaleLimit(year))) : null;
  const below = limit.applies && y.taxable.net.gt(0) && y.taxable.net.lt(deSaleLimit(year));
  return [
    ...describedSales(y.taxable),
    {
      form: '',
      kind: 'working',
      item: '§ 23 EStG: sales held one year or less (lines)',
      number: y.taxable.lines,
      note: 'taxable private sales (one per lot matched) of virtual currencies and other tokens; the Disposals sheet lists each',
    },
    {
      form: 'Anlage SO Zeile 44',
      kind: 'form',
      item: '§ 23 EStG: Veräußerungspreis',
      amount: show(y.taxable.proceeds),
      note: "net of the sales' fees (they are deducted here, so Zeile 46 stays empty)",
    },
    {
      form: 'Anlage SO Zeile 45',
      kind: 'form',
      item: '§ 23 EStG: Anschaffungskosten',
      amount: show(y.taxable.cost),
      note: '',
    },
    {
      form: 'Anlage SO Zeile 46',
      kind: 'form',
      item: '§ 23 EStG: Werbungskosten',
      amount: null,
      note: "left empty: the sales' fees are already deducted from the Veräußerungspreis (Zeile 44)",
    },
    {
      form: 'Anlage SO Zeile 47',
      kind: 'form',
      item: '§ 23 EStG: Gewinn/Verlust',
      amount: show(y.taxable.net),
      note: 'Zeile 44 − 45',
    },
    {
      form: 'Anlage SO Zeile 54',
      kind: 'form',
      item: '§ 23 EStG: Gewinn/Verlust carried from Zeile 47 (Feld 114; a spouse: Feld 115)',
      amount: show(y.taxable.net),
      note: "the amount of Zeile 47, entered again where the year's private sales are added up: with other private sales of the person (not in this data), their sum goes here",
    },
    {
      form: '',
      kind: 'reference',
      item: '§ 23 Abs. 3 Satz 5 EStG: Freigrenze',
      amount: limit.amount,
      note: `${deSaleLimit(year)} € (600 € through 2023, 1 000 € from 2024): a limit, not an allowance, for the total of ALL of a person's private sales of the year (not only these), each spouse separately; the Finanzamt applies it.${notApplied(currency)}`,
    },
    {
      form: '',
      kind: 'working',
      item: '§ 23 EStG: steuerpflichtig',
      amount: taxable,
      note: below ? 'below the Freigrenze: not taxable, unless other private sales raise the total' : '',
    },
    {
      form: '',
      kind: 'working',
      item: '§ 23 EStG: sales held more than one year (lines)',
      number: y.exempt.lines,
      note: 'not taxable (§ 23 Abs. 1 Satz 1 Nr. 2 EStG), shown; not on the form',
    },
    {
      form: '',
      kind: 'working',
      item: '§ 23 EStG: Gewinn/Verlust held more than one year',
      amount: show(y.exempt.net),
      note: 'not taxable; not on the form',
    },
  ];
}

/**
 * Zeilen 41 to 43: that there were sales of virtual currencies and other tokens, what was sold,
 * and when it was acquired and sold (the year's sales entered together, their list the Disposals
 * sheet). The entries are texts: the note says what to enter.
 */
function describedSales(taxable: Sales): SummaryLine[] {
  const none = taxable.lines === 0;
  const empty = 'no sale held one year or less in the year: Zeilen 41 to 47 stay empty';
  return [
    {
      form: 'Anlage SO Zeile 41',
      kind: 'form',
      item: '§ 23 EStG: private sales of virtual currencies and other tokens (Feld 108: 1 = yes)',
      number: none ? 0 : 1,
      note: none ? empty : 'enter 1: the sales of the year are declared together in Zeilen 42 to 47',
    },
    {
      form: 'Anlage SO Zeile 42',
      kind: 'form',
      item: '§ 23 EStG: Bezeichnung des Wirtschaftsguts',
      note: none ? empty : `enter: Virtuelle Währungen / sonstige Token (${tokenWords(taxable.tokens)})`,
    },
    {
      form: 'Anlage SO Zeile 43',
      kind: 'form',
      item: '§ 23 EStG: Zeitpunkt der Anschaffung und der Veräußerung',
      note: none
        ? empty
        : `enter: angeschafft ${spanWords(taxable.acquired)}, veräußert ${spanWords(taxable.sold)} (the first and last days of the lots sold and of the sales, Berlin dates; the Disposals sheet gives each sale's)`,
    },
  ];
}

function serviceLines(y: DeYear, money: GainsMoney, currency: string | null): SummaryLine[] {
  const show = money.showBig;
  const income = y.income.minus(y.expenses);
  const limit = reference(DE_SERVICES_LIMIT, 'EUR', currency);
  const below = limit.applies && income.gt(0) && income.lt(DE_SERVICES_LIMIT);
  const unconfirmed =
    'Not a line given here: the form line of the section Leistungen aus virtuellen Währungen und sonstigen Token (Zeilen 10 to 16) it goes on was not confirmed (docs/reference/tax-forms.md); check the form.';
  return [
    {
      form: 'Anlage SO Zeile 10',
      kind: 'form',
      item: '§ 22 Nr. 3 EStG: income from virtual currencies and other tokens (Feld 162: 1 = yes)',
      number: y.receipts > 0 ? 1 : 0,
      note:
        y.receipts > 0
          ? 'enter 1: staking, lending and other rewards were received'
          : 'no receipts: leave empty',
    },
    {
      form: 'Anlage SO Zeile 11',
      kind: 'form',
      item: '§ 22 Nr. 3 EStG: Einnahmen (staking, lending, rewards)',
      number: y.receipts,
      amount: show(y.income),
      note: 'receipts at their value on receipt; Number: how many',
    },
    {
      form: '',
      kind: 'working',
      item: '§ 22 Nr. 3 EStG: Werbungskosten',
      amount: show(y.expenses),
      note: `the receipts' fees: expenses of the income, not acquisition cost. ${unconfirmed}`,
    },
    {
      form: '',
      kind: 'working',
      item: '§ 22 Nr. 3 EStG: Einkünfte',
      amount: show(income),
      note: `Einnahmen − Werbungskosten, to which the Freigrenze applies. ${unconfirmed}`,
    },
    {
      form: '',
      kind: 'reference',
      item: '§ 22 Nr. 3 EStG: Freigrenze',
      amount: limit.amount,
      note: `Einkünfte of less than 256 € a year are tax-free: a limit, not an allowance, for ALL of a person's § 22 Nr. 3 income of the year.${notApplied(currency)}`,
    },
    {
      form: '',
      kind: 'working',
      item: '§ 22 Nr. 3 EStG: steuerpflichtig',
      amount: limit.applies ? show(afterLimit(income, DE_SERVICES_LIMIT)) : null,
      note: below ? 'below the Freigrenze: not taxable, unless other § 22 Nr. 3 income raises the total' : '',
    },
  ];
}
