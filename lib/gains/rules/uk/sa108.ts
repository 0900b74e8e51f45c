/**
 * uk: the Capital Gains summary (SA108) of each tax year: the cryptoasset boxes from 2024/25 on
 * (13.1 to 13.5), for 2024/25 the gains and losses before and from 30 October 2024 as inputs of
 * HMRC's adjustment calculator (whose result, a difference of tax, goes in box 51: they are not
 * box 51), and as reference lines the annual exempt amount and the reporting threshold. Sources:
 * docs/reference/tax-forms.md.
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

/** The first day of the higher rates (18% and 24%) in 2024/25: disposals on or after it. */
export const RATE_CHANGE_DATE = '2024-10-30';

/** The annual exempt amount of the tax year starting in `year` (GBP), when this tool knows it. */
export function annualExemptAmount(year: number): number | null {
  if (year >= 2024 && year <= 2025) return 3000;
  if (year === 2023) return 6000;
  if (year >= 2020 && year <= 2022) return 12300;
  return null;
}

/** The reporting threshold (GBP) on disposal proceeds from 2023/24 on; null before. */
export function reportingThreshold(year: number): number | null {
  return year >= 2023 ? 50000 : null;
}

interface Part {
  gains: Big;
  losses: Big;
}

interface UkYear {
  disposals: number;
  proceeds: Big;
  costs: Big;
  whole: Part;
  /** 2024/25: before 30 October 2024 and from it. */
  before: Part;
  after: Part;
}

const part = (): Part => ({ gains: ZERO, losses: ZERO });

function addNet(target: Part, net: Big): void {
  if (net.gt(0)) target.gains = target.gains.plus(net);
  else target.losses = target.losses.minus(net);
}

/**
 * UK: per tax year, the Capital Gains summary's cryptoasset boxes. Every token's disposals of one
 * London day are one disposal (the same-day rule); its gain or loss is the net of its parts.
 * Proceeds are gross (disposal fees are among the allowable costs), as SA108 asks.
 */
export function createSa108Summary(coverage: Coverage): TaxSummary {
  const years = new Map<string, UkYear>();
  let current: { key: string; year: string; net: Big; date: string } | null = null;
  const close = () => {
    if (current === null) return;
    const year = years.get(current.year) as UkYear;
    addNet(year.whole, current.net);
    addNet(current.date < RATE_CHANGE_DATE ? year.before : year.after, current.net);
    current = null;
  };
  return {
    spec: (money = EXACT_MONEY) => ({
      name: 'tax_summary',
      title: 'Capital Gains summary',
      description:
        "SA108's cryptoasset boxes (13.1 to 13.5) of each tax year, one a row, then reference lines: the net gain, the inputs of HMRC's adjustment calculator, the annual exempt amount",
      columns: taxSummaryColumns(COVERS_COLUMN, summaryCurrency(money, 'GBP')),
    }),
    add(line) {
      const key = `${line.token}\u0000${line.disposedAt}\u0000${line.disposedTxId}`;
      let year = years.get(line.taxYear);
      if (year === undefined) {
        year = { disposals: 0, proceeds: ZERO, costs: ZERO, whole: part(), before: part(), after: part() };
        years.set(line.taxYear, year);
      }
      if (current?.key !== key) {
        close();
        const date = localDate(line.disposedAt, 'Europe/London');
        current = { key, year: line.taxYear, net: ZERO, date };
        year.disposals += 1;
      }
      year.proceeds = year.proceeds.plus(line.proceeds);
      year.costs = year.costs.plus(line.cost);
      current.net = current.net.plus(line.gain);
    },
    addIncome() {},
    rows(money = EXACT_MONEY): Row[] {
      close();
      const currency = summaryCurrency(money, 'GBP');
      return yearRows(coverage, years.keys(), (label) =>
        yearLines(Number(label.slice(0, 4)), years.get(label) as UkYear, money, currency),
      );
    },
  };
}

/** The lines of one tax year (starting in `start`), amounts as `money` shows them. */
function yearLines(start: number, y: UkYear, money: GainsMoney, currency: string | null): SummaryLine[] {
  const show = money.showBig;
  // The cryptoasset section of SA108 exists from 2024/25 on; before, cryptoassets went under
  // "Other property, assets and gains", whose boxes are not given here.
  const box = (n: string) => (start >= 2024 ? `SA108 box ${n}` : '');
  const kind = start >= 2024 ? ('form' as const) : ('working' as const);
  const earlier = start >= 2024 ? '' : ' (before 2024/25: under "Other property, assets and gains")';
  const lines: SummaryLine[] = [
    {
      form: box('13.1'),
      kind,
      item: `Cryptoassets: number of disposals${earlier}`,
      number: y.disposals,
      note: "each token's disposals of one day are one disposal (same-day rule)",
    },
    {
      form: box('13.2'),
      kind,
      item: 'Cryptoassets: disposal proceeds',
      amount: show(y.proceeds),
      note: 'gross: disposal fees are not deducted (they are allowable costs)',
    },
    {
      form: box('13.3'),
      kind,
      item: 'Cryptoassets: allowable costs (including purchase price)',
      amount: show(y.costs),
      note: 'cost of what was disposed of, with the fees of acquiring and disposing of it',
    },
    {
      form: box('13.4'),
      kind,
      item: 'Cryptoassets: gains in the year, before losses',
      amount: show(y.whole.gains),
      note: 'sum of the disposals with a gain',
    },
    {
      form: box('13.5'),
      kind,
      item: 'Cryptoassets: losses in the year',
      amount: show(y.whole.losses),
      note: 'sum of the disposals with a loss, as a positive amount',
    },
    {
      form: '',
      kind: 'working',
      item: 'Net gain or loss',
      amount: show(y.whole.gains.minus(y.whole.losses)),
      note: 'gains less losses of the year, before losses brought forward and the annual exempt amount',
    },
  ];
  if (start === 2024) lines.push(...rateSplit(y, show));
  lines.push(...referenceLines(start, y, currency));
  return lines;
}

/**
 * 2024/25: the gains and losses before 30 October 2024 and from it (the rates rose on that day),
 * as HMRC's adjustment calculator asks for them. They are not box 51: box 51 takes the calculator's
 * result, the difference of tax the new rates make.
 */
function rateSplit(y: UkYear, show: (amount: Big) => string): SummaryLine[] {
  const input = (item: string, amount: Big, when: string): SummaryLine => ({
    form: '',
    kind: 'input',
    item: `HMRC adjustment calculator input: ${item}`,
    amount: show(amount),
    note: `disposals ${when} 30 October 2024 (the rates rose from 10% and 20% to 18% and 24% that day). Not a box: HMRC's calculator "Work out your Capital Gains Tax adjustment for the 2024 to 2025 tax year" asks for it; what goes in SA108 box 51 (Adjustment to Capital Gains Tax) is the calculator's result, a difference of tax`,
  });
  return [
    input('gains before 30 October 2024', y.before.gains, 'before'),
    input('losses before 30 October 2024', y.before.losses, 'before'),
    input('gains from 30 October 2024', y.after.gains, 'on or after'),
    input('losses from 30 October 2024', y.after.losses, 'on or after'),
  ];
}

/** The annual exempt amount and the reporting threshold of the year, in pounds (reference, not form lines). */
function referenceLines(start: number, y: UkYear, currency: string | null): SummaryLine[] {
  const exempt = reference(annualExemptAmount(start), 'GBP', currency);
  const threshold = reference(reportingThreshold(start), 'GBP', currency);
  const other =
    currency !== null && currency !== 'GBP'
      ? ` (in GBP; the figures here are ${currency}: not compared)`
      : '';
  const limit = reportingThreshold(start);
  const over =
    limit === null || !threshold.applies
      ? ''
      : y.proceeds.gt(limit)
        ? ": this year's disposal proceeds are above it, so the disposals must be reported"
        : ": this year's disposal proceeds are not above it";
  return [
    {
      form: '',
      kind: 'reference',
      item: 'Annual exempt amount (reference)',
      amount: exempt.amount,
      note:
        annualExemptAmount(start) === null
          ? 'not known to this tool for this year: see gov.uk'
          : `£${annualExemptAmount(start)} for all of a person's gains of the year, not cryptoassets only; not deducted here${other}`,
    },
    {
      form: '',
      kind: 'reference',
      item: 'Reporting threshold: disposal proceeds (reference)',
      amount: threshold.amount,
      note:
        limit === null
          ? 'before 2023/24 the threshold was four times the annual exempt amount'
          : `gains must be reported when the year's gross disposal proceeds are above £${limit}, even without a gain${over}${other}`,
    },
  ];
}
