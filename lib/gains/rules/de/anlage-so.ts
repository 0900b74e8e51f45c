/**
 * de: the Anlage SO lines of each calendar year: private sales of virtual currencies and other
 * tokens (§ 23 EStG, Zeilen 41–47) with the year's Freigrenze, the sales held longer (not
 * taxable, shown), and income from services (§ 22 Nr. 3 EStG, Zeilen 10–16: staking, lending,
 * rewards) as Einnahmen less Werbungskosten, with its 256 € limit. The limits are in euros: with
 * figures in another currency they are shown in the note and not applied. Sources and what was
 * confirmed: lib/gains/README.md (de).
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
import type { DisposalLine } from '../../types.ts';

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
}

interface DeYear {
  taxable: Sales;
  exempt: Sales;
  receipts: number;
  income: Big;
  expenses: Big;
}

const sales = (): Sales => ({ lines: 0, proceeds: ZERO, cost: ZERO, net: ZERO });

function addSale(target: Sales, line: DisposalLine): void {
  target.lines += 1;
  target.proceeds = target.proceeds.plus(line.proceeds);
  target.cost = target.cost.plus(line.cost);
  target.net = target.net.plus(line.gain);
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
    {
      form: '',
      item: '§ 23 EStG: sales held one year or less (lines)',
      number: y.taxable.lines,
      note: 'taxable private sales (one per lot matched) of virtual currencies and other tokens',
    },
    {
      form: 'Anlage SO Zeile 44',
      item: '§ 23 EStG: Veräußerungspreis',
      amount: show(y.taxable.proceeds),
      note: "net of the sales' fees (they are deducted here, so Zeile 46 stays empty)",
    },
    {
      form: 'Anlage SO Zeile 45',
      item: '§ 23 EStG: Anschaffungskosten',
      amount: show(y.taxable.cost),
      note: '',
    },
    {
      form: 'Anlage SO Zeile 46',
      item: '§ 23 EStG: Werbungskosten',
      amount: null,
      note: "the sales' fees are already deducted from the Veräußerungspreis (Zeile 44)",
    },
    {
      form: 'Anlage SO Zeile 47',
      item: '§ 23 EStG: Gewinn/Verlust',
      amount: show(y.taxable.net),
      note: 'Zeile 44 − 45',
    },
    {
      form: '',
      item: '§ 23 Abs. 3 Satz 5 EStG: Freigrenze',
      amount: limit.amount,
      note: `${deSaleLimit(year)} € (600 € through 2023, 1 000 € from 2024): a limit, not an allowance, for the total of ALL of a person's private sales of the year (not only these), each spouse separately.${notApplied(currency)}`,
    },
    {
      form: '',
      item: '§ 23 EStG: steuerpflichtig',
      amount: taxable,
      note: below ? 'below the Freigrenze: not taxable, unless other private sales raise the total' : '',
    },
    {
      form: '',
      item: '§ 23 EStG: sales held more than one year (lines)',
      number: y.exempt.lines,
      note: 'not taxable (§ 23 Abs. 1 Satz 1 Nr. 2 EStG), shown',
    },
    {
      form: '',
      item: '§ 23 EStG: Gewinn/Verlust held more than one year',
      amount: show(y.exempt.net),
      note: 'not taxable',
    },
  ];
}

function serviceLines(y: DeYear, money: GainsMoney, currency: string | null): SummaryLine[] {
  const show = money.showBig;
  const income = y.income.minus(y.expenses);
  const limit = reference(DE_SERVICES_LIMIT, 'EUR', currency);
  const below = limit.applies && income.gt(0) && income.lt(DE_SERVICES_LIMIT);
  return [
    {
      form: 'Anlage SO Zeile 11',
      item: '§ 22 Nr. 3 EStG: Einnahmen (staking, lending, rewards)',
      number: y.receipts,
      amount: show(y.income),
      note: 'receipts at their value on receipt',
    },
    {
      form: 'Anlage SO Zeilen 10–16',
      item: '§ 22 Nr. 3 EStG: Werbungskosten',
      amount: show(y.expenses),
      note: "the receipts' fees: expenses of the income, not acquisition cost",
    },
    {
      form: 'Anlage SO Zeilen 10–16',
      item: '§ 22 Nr. 3 EStG: Einkünfte',
      amount: show(income),
      note: 'Einnahmen − Werbungskosten',
    },
    {
      form: '',
      item: '§ 22 Nr. 3 EStG: Freigrenze',
      amount: limit.amount,
      note: `Einkünfte of less than 256 € a year are tax-free: a limit, not an allowance, for ALL of a person's § 22 Nr. 3 income of the year.${notApplied(currency)}`,
    },
    {
      form: '',
      item: '§ 22 Nr. 3 EStG: steuerpflichtig',
      amount: limit.applies ? show(afterLimit(income, DE_SERVICES_LIMIT)) : null,
      note: below ? 'below the Freigrenze: not taxable, unless other § 22 Nr. 3 income raises the total' : '',
    },
  ];
}
