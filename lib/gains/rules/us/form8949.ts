/**
 * The US filing package of the gains report (`taxRules: 'us'`): Form 8949 (Sales and Other
 * Dispositions of Capital Assets), one row per disposal, Part I short term and Part II long term,
 * each under the check box that fits the tax year and what a broker reported, and the totals of
 * each box as they carry to Schedule D (Form 1040). Sources and decisions: README.md in this folder
 * ("Form 8949 and Schedule D").
 */
import {
  type Big,
  type Column,
  numberWidth,
  type Row,
  type TableSource,
  type TableSpec,
  text,
  ZERO,
} from '../../../domain/index.ts';
import { COVERS_COLUMN, type Coverage, createCoverage } from '../../coverage.ts';

import type { GainsMoney } from '../../rounding.ts';
import { localDate } from '../../tax-year.ts';
import type { DisposalLine } from '../../types.ts';

/**
 * What a broker reported about the disposals: `none` (no Form 1099-DA or 1099-B: the boxes "not
 * reported to you"), `basis-reported` (a 1099 showing the basis was reported to the IRS) or
 * `basis-not-reported` (a 1099 showing the proceeds only).
 */
export const BROKER_REPORTING = ['none', 'basis-reported', 'basis-not-reported'] as const;
/** One of {@link BROKER_REPORTING}. */
export type BrokerReporting = (typeof BROKER_REPORTING)[number];

/**
 * What a broker reported, account by account: `accounts` names the accounts a broker reported
 * (a custodial exchange sending Form 1099-DA); every other account takes `default` (usually `none`:
 * self-custody wallets nobody reports).
 */
export interface BrokerReportingByAccount {
  default: BrokerReporting;
  accounts: Readonly<Record<string, BrokerReporting>>;
}

/** The reporting of `account` under `reporting` (one value for every account, or per account). */
export function reportingOf(
  reporting: BrokerReporting | BrokerReportingByAccount,
  account: string,
): BrokerReporting {
  if (typeof reporting === 'string') return reporting;
  return Object.hasOwn(reporting.accounts, account)
    ? (reporting.accounts[account] as BrokerReporting)
    : reporting.default;
}

/** First tax year whose Form 8949 has the digital-asset boxes G to L (Form 1099-DA). */
export const DIGITAL_ASSET_BOXES_FROM = 2025;

/** A check box of Form 8949, its part and the Schedule D line its totals go on. */
export interface Form8949Box {
  box: 'A' | 'B' | 'C' | 'D' | 'E' | 'F' | 'G' | 'H' | 'I' | 'J' | 'K' | 'L';
  /** `I` short term, `II` long term. */
  part: 'I' | 'II';
  /** Schedule D line of the box's totals: 1b, 2, 3 (Part I), 8b, 9, 10 (Part II). */
  line: '1b' | '2' | '3' | '8b' | '9' | '10';
  /** The box's caption, as the form words it. */
  title: string;
}

type HoldingTerm = 'short' | 'long';

/** Box before 2025 and from 2025, and the Schedule D line, per term and broker reporting. */
const BOXES: Record<
  HoldingTerm,
  Record<BrokerReporting, [Form8949Box['box'], Form8949Box['box'], Form8949Box['line']]>
> = {
  short: { 'basis-reported': ['A', 'G', '1b'], 'basis-not-reported': ['B', 'H', '2'], none: ['C', 'I', '3'] },
  long: { 'basis-reported': ['D', 'J', '8b'], 'basis-not-reported': ['E', 'K', '9'], none: ['F', 'L', '10'] },
};

/**
 * The box of a disposal held `term` in `taxYear` when the broker reported `reporting`: from 2025
 * the digital-asset boxes (G, H, I short term; J, K, L long term: the 2025 instructions say not
 * to use C or F for digital assets), before it the boxes of Form 1099-B (A, B, C; D, E, F).
 */
export function form8949Box(taxYear: number, term: HoldingTerm, reporting: BrokerReporting): Form8949Box {
  const [before, from2025, line] = BOXES[term][reporting];
  const digital = taxYear >= DIGITAL_ASSET_BOXES_FROM;
  const held = term === 'short' ? 'Short' : 'Long';
  // The captions as the forms print them: 2025 (f8949, boxes G to L) and 2024 (boxes A to F).
  const title = digital
    ? reporting === 'none'
      ? `${held}-term digital asset transactions not reported to you on Form 1099-DA or Form 1099-B`
      : `${held}-term transactions reported on Form(s) 1099-DA showing basis was ${reporting === 'basis-reported' ? '' : 'not '}reported to the IRS`
    : reporting === 'none'
      ? `${held}-term transactions not reported to you on Form 1099-B`
      : `${held}-term transactions reported on Form(s) 1099-B showing basis ${reporting === 'basis-reported' ? 'was' : "wasn't"} reported to the IRS`;
  return { box: digital ? from2025 : before, part: term === 'short' ? 'I' : 'II', line, title };
}

/** Options of {@link createForm8949}. */
export interface Form8949Options {
  /** IANA zone of the dates in columns (b) and (c). */
  timeZone: string;
  /** What a broker reported: one value for every account, or account by account (each disposal's box follows its account). */
  reporting: BrokerReporting | BrokerReportingByAccount;
  /** The part of each tax year the export's period covers (default: every year whole). */
  coverage?: Coverage;
}

/** Form 8949 and its Schedule D lines, built from the rounded disposal lines as they come. */
export interface Form8949 {
  /** Takes one disposal line, rounded as the reports show it (see `roundDisposal`), in processing order. */
  add(line: DisposalLine): void;
  /**
   * The `form-8949` and `schedule-d` tables. `read` gives every line added, again and in the same
   * order (it is read once per box, so memory stays flat however many disposals there are).
   */
  tables(read: () => AsyncIterable<DisposalLine>, money: GainsMoney): TableSource[];
}

interface BoxTotals {
  year: string;
  term: HoldingTerm;
  reporting: BrokerReporting;
  box: Form8949Box;
  rows: number;
  proceeds: Big;
  cost: Big;
  /** The disposal of the last line of this box: lines of one disposal make one row. */
  lastKey: string | null;
}

/** A disposal's lines gathered into one row of the form. */
interface Disposal {
  key: string;
  token: string;
  quantity: Big;
  acquired: Set<string>;
  unknownAcquired: boolean;
  disposedAt: number;
  account: string;
  txId: string;
  proceeds: Big;
  cost: Big;
}

/** `YYYY-MM-DD` as the form writes dates: `MM/DD/YYYY`. */
function formDate(date: string): string {
  return `${date.slice(5, 7)}/${date.slice(8, 10)}/${date.slice(0, 4)}`;
}

const keyOf = (line: DisposalLine) =>
  [line.disposedTxId, line.token, line.disposedAt, line.account].join('\u0000');

/** An empty Form 8949 for a `us` run. */
export function createForm8949(options: Form8949Options): Form8949 {
  const boxes = new Map<string, BoxTotals>();
  const coverage =
    options.coverage ??
    createCoverage({
      periodStart: null,
      periodEnd: null,
      timeZone: options.timeZone,
      taxYearStart: { month: 1, day: 1 },
    });
  return {
    add(line) {
      if (line.term === 'none') return;
      const reporting = reportingOf(options.reporting, line.account);
      const id = `${line.taxYear}\u0000${line.term}\u0000${reporting}`;
      let totals = boxes.get(id);
      if (totals === undefined) {
        const box = form8949Box(Number(line.taxYear.slice(0, 4)), line.term, reporting);
        totals = {
          year: line.taxYear,
          term: line.term,
          reporting,
          box,
          rows: 0,
          proceeds: ZERO,
          cost: ZERO,
          lastKey: null,
        };
        boxes.set(id, totals);
      }
      // The same grouping as the rows: consecutive lines of this box with the same disposal.
      const key = keyOf(line);
      if (key !== totals.lastKey) totals.rows += 1;
      totals.lastKey = key;
      totals.proceeds = totals.proceeds.plus(line.proceeds);
      totals.cost = totals.cost.plus(line.cost);
    },
    tables(read, money) {
      // By tax year, Part I then Part II, and in each part the boxes in the form's order (A/G first).
      const ordered = [...boxes.values()].sort((a, b) =>
        a.year === b.year
          ? a.term === b.term
            ? a.box.box.localeCompare(b.box.box)
            : a.term === 'short'
              ? -1
              : 1
          : a.year < b.year
            ? -1
            : 1,
      );
      const show = money.showBig;
      // Totals are the widest amounts but for a sign: a line's gain may be negative where the total is not.
      const width = ordered.reduce(
        (widest, t) =>
          Math.max(
            widest,
            ...[t.proceeds, t.cost, t.proceeds.minus(t.cost)].map((v) => numberWidth(show(v.abs())) + 1),
          ),
        0,
      );
      return [
        formTable(ordered, read, money, { ...options, width, coverage }),
        scheduleDTable(ordered, money, width, coverage),
      ];
    },
  };
}

const text_ = (key: string, header: string, description: string, extra: Partial<Column> = {}): Column => ({
  key,
  header,
  kind: 'text',
  description,
  ...extra,
});

function moneyColumn(key: string, header: string, description: string, width: number): Column {
  return { key, header, kind: 'decimal', description, ...(width > 0 ? { width } : {}) };
}

/** Columns of the `form-8949` table. */
export function form8949Columns(money: GainsMoney, width = 0): Column[] {
  return [
    text_('tax_year', 'Tax year', 'the calendar year of the date sold'),
    text_('part', 'Part', 'I: short term (held one year or less); II: long term (held more than one year)'),
    text_('box', 'Box', 'the check box of the part the row goes under (see the Read me and the README)'),
    text_(
      'description',
      '(a) Description of property',
      'the exact units and the token disposed of, and the sale transaction ID, e.g. 0.5 ETH (sale transaction ID tx-1); on a TOTAL row, the box and the Schedule D line its totals go on',
      { wrap: true, width: 48 },
    ),
    text_(
      'date_acquired',
      '(b) Date acquired',
      'MM/DD/YYYY in the report zone; VARIOUS when the lots were acquired on different days; empty when no lot was found (zero basis, see Warnings)',
    ),
    text_('date_sold', '(c) Date sold or disposed of', 'MM/DD/YYYY in the report zone'),
    moneyColumn(
      'proceeds',
      money.header('(d) Proceeds'),
      'sales price net of selling fees, the sum of the rounded disposal lines',
      width,
    ),
    moneyColumn(
      'cost',
      money.header('(e) Cost or other basis'),
      'basis with purchase fees, the sum of the rounded disposal lines',
      width,
    ),
    text_('code', '(f) Code(s)', 'adjustment codes: none are made'),
    moneyColumn(
      'adjustment',
      money.header('(g) Amount of adjustment'),
      'none are made; 0 on TOTAL rows',
      width,
    ),
    moneyColumn('gain', money.header('(h) Gain or (loss)'), '(d) − (e) + (g); negative is a loss', width),
    text_('account', 'Account', 'the account the disposal was made from'),
    text_('transaction', 'Transaction', 'the disposing transaction (see Disposals for its lots)'),
    { ...COVERS_COLUMN, description: `TOTAL rows: ${COVERS_COLUMN.description}` },
  ];
}

function formTable(
  ordered: readonly BoxTotals[],
  read: () => AsyncIterable<DisposalLine>,
  money: GainsMoney,
  options: Form8949Options & { width: number; coverage: Coverage },
): TableSource {
  const { timeZone, width, coverage, reporting } = options;
  const spec: TableSpec = {
    name: 'form-8949',
    title: 'Form 8949',
    description:
      'Form 8949 (Sales and Other Dispositions of Capital Assets): one row per disposal, by tax year, Part I (short term) then Part II (long term), each box followed by its TOTAL row',
    columns: form8949Columns(money, width),
  };
  const show = money.showBig;
  const row = (t: BoxTotals, d: Disposal): Row => {
    const dates = [...d.acquired];
    const acquired =
      dates.length === 1 && !d.unknownAcquired
        ? formDate(dates[0] as string)
        : dates.length === 0
          ? null
          : 'VARIOUS';
    return [
      t.year,
      t.box.part,
      t.box.box,
      `${text(d.quantity)} ${d.token} (sale transaction ID ${d.txId})`,
      acquired,
      formDate(localDate(d.disposedAt, timeZone)),
      show(d.proceeds),
      show(d.cost),
      null,
      null,
      show(d.proceeds.minus(d.cost)),
      d.account,
      d.txId,
      null,
    ];
  };
  return {
    spec,
    async *rows() {
      for (const t of ordered) {
        let current: Disposal | null = null;
        for await (const line of read()) {
          if (line.taxYear !== t.year || line.term !== t.term) continue;
          if (reportingOf(reporting, line.account) !== t.reporting) continue;
          const key = keyOf(line);
          if (current !== null && current.key !== key) {
            yield row(t, current);
            current = null;
          }
          current ??= {
            key,
            token: line.token,
            quantity: ZERO,
            acquired: new Set(),
            unknownAcquired: false,
            disposedAt: line.disposedAt,
            account: line.account,
            txId: line.disposedTxId,
            proceeds: ZERO,
            cost: ZERO,
          };
          current.quantity = current.quantity.plus(line.quantity);
          if (line.acquiredAt === null) current.unknownAcquired = true;
          else current.acquired.add(localDate(line.acquiredAt, timeZone));
          current.proceeds = current.proceeds.plus(line.proceeds);
          current.cost = current.cost.plus(line.cost);
        }
        if (current !== null) yield row(t, current);
        yield [
          t.year,
          t.box.part,
          t.box.box,
          `TOTAL box ${t.box.box} (Schedule D line ${t.box.line})`,
          null,
          null,
          show(t.proceeds),
          show(t.cost),
          null,
          show(ZERO),
          show(t.proceeds.minus(t.cost)),
          null,
          null,
          coverage.of(t.year).text,
        ];
      }
    },
  };
}

function scheduleDTable(
  ordered: readonly BoxTotals[],
  money: GainsMoney,
  width: number,
  coverage: Coverage,
): TableSource {
  const spec: TableSpec = {
    name: 'schedule-d',
    title: 'Schedule D',
    description:
      'the totals of each Form 8949 box as they go on Schedule D (Form 1040): lines 1b, 2, 3 (Part I, short term) and 8b, 9, 10 (Part II, long term), then per tax year line 7 (net short term), line 15 (net long term) and line 16 (the two combined), column (h) only',
    columns: [
      text_('tax_year', 'Tax year', 'the calendar year'),
      text_('line', 'Line', 'the Schedule D line'),
      text_('box', 'Form 8949 box', 'the box whose totals go on the line; empty on lines 7, 15 and 16'),
      text_('description', 'Description', "the line's caption", { wrap: true, width: 48 }),
      moneyColumn('proceeds', money.header('(d) Proceeds'), "the box's TOTAL of column (d)", width),
      moneyColumn('cost', money.header('(e) Cost or other basis'), "the box's TOTAL of column (e)", width),
      moneyColumn('adjustment', money.header('(g) Adjustments'), "the box's TOTAL of column (g)", width),
      moneyColumn('gain', money.header('(h) Gain or (loss)'), "the box's TOTAL of column (h)", width),
      text_('rows', 'Form 8949 rows', 'how many rows of Form 8949 the totals add up'),
      COVERS_COLUMN,
    ],
  };
  const show = money.showBig;
  return {
    spec,
    async *rows() {
      for (const [year, boxes] of byYear(ordered)) {
        for (const t of boxes) {
          yield [
            t.year,
            t.box.line,
            t.box.box,
            `Totals for all transactions reported on Form(s) 8949 with Box ${t.box.box} checked (${t.box.title})`,
            show(t.proceeds),
            show(t.cost),
            show(ZERO),
            show(t.proceeds.minus(t.cost)),
            String(t.rows),
            coverage.of(t.year).text,
          ];
        }
        for (const [line, caption, gain] of scheduleDTotals(boxes))
          yield [year, line, null, caption, null, null, null, show(gain), null, coverage.of(year).text];
      }
    },
  };
}

/** The boxes of each tax year, in order. */
function byYear(ordered: readonly BoxTotals[]): Map<string, BoxTotals[]> {
  const years = new Map<string, BoxTotals[]>();
  for (const t of ordered) years.set(t.year, [...(years.get(t.year) ?? []), t]);
  return years;
}

/**
 * Schedule D's totals of column (h) from the boxes of one tax year: line 7 (net short term),
 * line 15 (net long term) and line 16 (lines 7 and 15 combined), as the 2025 form words them.
 * The form's other lines (1a, 4 to 6, 8a, 11 to 14: other forms, K-1s, capital gain
 * distributions, loss carryovers) are not in this data: each caption says to add them.
 */
function scheduleDTotals(boxes: readonly BoxTotals[]): [line: string, caption: string, gain: Big][] {
  const net = (term: HoldingTerm) =>
    boxes.filter((t) => t.term === term).reduce((sum, t) => sum.plus(t.proceeds.minus(t.cost)), ZERO);
  const [short, long] = [net('short'), net('long')];
  return [
    [
      '7',
      'Net short-term capital gain or (loss): lines 1b, 2 and 3 above, column (h). Add lines 1a and 4 to 6 (other forms, K-1s, the short-term loss carryover) if you have them: they are not in this data',
      short,
    ],
    [
      '15',
      'Net long-term capital gain or (loss): lines 8b, 9 and 10 above, column (h). Add lines 8a and 11 to 14 (other forms, K-1s, capital gain distributions, the long-term loss carryover) if you have them: they are not in this data',
      long,
    ],
    [
      '16',
      'Combine lines 7 and 15. A gain goes on Form 1040, line 7a; a loss goes to line 21 (at most $3,000, $1,500 if married filing separately)',
      short.plus(long),
    ],
  ];
}
