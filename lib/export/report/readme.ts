/**
 * The "Read me" of a run, for an accountant: what each file and sheet holds, every column in one
 * line, the sign conventions, the options in plain words, where the data came from and the run
 * id, and on the simulator's data the demo banner. The workbook shows it as its first sheet; the
 * CSV files get it as `README.txt` beside them. Both are made from the same lines.
 */

import type { Column, Row, TableSource, TableSpec } from '../../domain/index.ts';
import { demoRatesNote } from '../../fx/index.ts';
import {
  coverageOptions,
  createCoverage,
  findLotMethod,
  findRuleSet,
  poolingRulesList,
  resolveGainsOptions,
  ruleSet,
} from '../../gains/index.ts';
import { journalReadmeLines } from '../../ledger/index.ts';
import { openPeriodCutOff, periodLabel, periodRange } from '../plan/period.ts';
import type { ExportRequest, GainsRequestOptions } from '../plan/request.ts';
import { conversionWords } from './fx-step.ts';
import { FEE_TREATMENT, gainsEngineOptions, taxYearZone } from './gains-feed.ts';
import type { MoneyRounding } from './money-rounding.ts';
import { extraFileLines } from './readme-files.ts';
import { columnMeaning, WARNING_WORDS } from './readme-words.ts';
import { hasOffsetColumn, OFFSET_SUFFIX } from './writers/csv-dates.ts';

/** What the Read me is made from: the run's request, source and tables. */
export interface ReadmeInput {
  request: ExportRequest;
  runId: string;
  generator: { name: string; version: string };
  /** When the run started (ISO instant). */
  createdAt: string;
  apiBase: string;
  demo: boolean;
  windows: number;
  shards: number;
  /** The report tables, in file and sheet order. */
  tables: readonly TableSpec[];
  /** Start of every file name, e.g. `demo_2025`. */
  baseName: string;
  /** How the rounded tables' money is rounded (`moneyRounding` of `tables`); null when none is. */
  money: MoneyRounding | null;
  /** Disposals whose 30 days (HMRC identification) were not over when the data was fetched, in words. */
  pendingMatches?: readonly string[];
  /** The zone the dates are shown in, when not the request's (`render --time-zone`). */
  datesShownIn?: string;
  /** The gains warnings by kind (`warningsByKind`), for the first screen; none without gains. */
  warnings?: ReadonlyMap<string, number>;
  /** The run writes the PDF tax pack (a gains run with the workbook, outside the Lambda functions). */
  taxPack?: boolean;
  /** More first-screen notes from outside the reports (the reconciliation's result, lib/export/reconcile). */
  attention?: readonly string[];
}

/** One line of the Read me: a short topic (may be empty under the previous one) and its text. */
export type ReadmeLine = readonly [topic: string, text: string];

/** The banner of a run on the simulator's data: in the manifest, the Read me, the About sheet and on every printed page. */
export const DEMO_BANNER = 'DEMO DATA, not a real portfolio';

/** Name of the Read me beside the CSV files. */
export const README_FILE = 'README.txt';

/** The pools of each pooling, in words (the Read me and the About sheet): the rule sets' words. */
export const POOLS: Readonly<Record<string, string>> = Object.fromEntries(
  poolingRulesList().map((pooling) => [pooling.name, pooling.words]),
);

/** The lines of the Read me, in order. */
export function readmeLines(input: ReadmeInput): ReadmeLine[] {
  return [
    ...(input.demo
      ? [[DEMO_BANNER, 'made by the simulator built into pbs-export, for trying it out'] as const]
      : []),
    ...attentionLines(input),
    ...introLines(input),
    ...taxYearLines(input),
    ...pendingLines(input),
    ...fileLines(input),
    ...input.tables.flatMap((spec) => tableLines(spec, input)),
    ...warningKindLines(input),
    ...signLines(input.request),
    ...roundingLines(input),
    ...optionLines(input.request, input.datesShownIn),
  ];
}

/**
 * The first screen: what needs a reader's attention before any figure is used — the warnings by
 * kind, the tax years the period covers only in part, and demo data.
 */
function attentionLines(input: ReadmeInput): ReadmeLine[] {
  const notes: string[] = [];
  if (input.demo) notes.push('the figures are DEMO DATA made by the simulator, not a real portfolio');
  notes.push(...(input.attention ?? []));
  const { request } = input;
  const demoRates = demoRatesNote(request.gains?.rates?.files);
  if (demoRates !== null) notes.push(demoRates);
  if (request.gains !== undefined) {
    const range = periodRange(request.period, request.timeZone);
    const options = resolveGainsOptions(
      gainsEngineOptions(request, { start: range.start.toJSDate(), end: range.end.toJSDate() }),
    );
    const partial = createCoverage(coverageOptions(options))
      .years()
      .filter((year) => !year.complete);
    if (partial.length > 0) {
      notes.push(
        `the period covers only part of tax year ${partial.map((year) => year.label).join(', ')}: its totals are not the whole year's (see "Tax years")`,
      );
    }
    const warnings = [...(input.warnings ?? new Map<string, number>())].sort(([a], [b]) =>
      a.localeCompare(b),
    );
    const total = warnings.reduce((sum, [, n]) => sum + n, 0);
    notes.push(
      total === 0
        ? 'no warnings'
        : `${total} warning(s) on the "Warnings" sheet (${warnings.map(([kind, n]) => `${n} ${kind}`).join(', ')}): see "Warning kinds" below for what each means and what to do`,
    );
  }
  if (notes.length === 0) return [];
  return [['Needs attention', notes[0] as string], ...notes.slice(1).map((note): ReadmeLine => ['', note])];
}

/** Every warning kind: what it means and what to do (with the gains reports). */
function warningKindLines(input: ReadmeInput): ReadmeLine[] {
  if (input.request.gains === undefined) return [];
  return [
    ['Warning kinds', 'the "Kind" column of the warnings says which of these a warning is:'],
    ...Object.entries(WARNING_WORDS).map(([kind, words]): ReadmeLine => ['', `${kind}: ${words}`]),
  ];
}

/**
 * HMRC identification: the disposals of the period whose 30 days after were not over when the data
 * was fetched. An acquisition in the rest of those days may still be matched with them (30-day
 * rule) and change their cost: export again once the days are over.
 */
function pendingLines(input: ReadmeInput): ReadmeLine[] {
  const pending = input.pendingMatches ?? [];
  if (pending.length === 0) return [];
  return [
    [
      'May still change',
      `${pending.length} disposal(s) of the period have 30 days after them that were not over when the data was fetched: an acquisition on one of those days may still be matched with them (30-day rule) and change their cost. Export again once the days are over. They are (also in the warnings, kind thirty-day-window):`,
    ],
    ...pending.map((line): ReadmeLine => ['', line]),
  ];
}

function introLines(input: ReadmeInput): ReadmeLine[] {
  const { request } = input;
  const range = periodRange(request.period, request.timeZone);
  const source = input.demo
    ? `the simulator built into pbs-export at ${input.apiBase} (demo data, not a real portfolio)`
    : `Portfolio Balance Service API V2 at ${input.apiBase}`;
  return [
    ['Read me', `Reports of portfolio profile "${request.profile}" for ${periodLabel(request.period)}.`],
    [
      'Period',
      `${range.start.toISO()} up to ${range.end.toISO()} (the end not included), in the time zone ${request.timeZone}`,
    ],
    ...partialLines(request, input.createdAt),
    ...(input.datesShownIn === undefined
      ? []
      : ([['Dates shown in', datesShownNote(input.datesShownIn, request.timeZone)]] as ReadmeLine[])),
    ['Data source', source],
    [
      'Run id',
      `${input.runId} (made ${input.createdAt} by ${input.generator.name} ${input.generator.version})`,
    ],
    [
      'Fetched',
      `${input.windows} window(s) of one ${request.window}, ${input.shards} search(es); manifest.json lists each with its row count`,
    ],
  ];
}

/** The warning of a report of a period that was not over when the export ran (see {@link partialNote}). */
function partialLines(request: ExportRequest, createdAt: string): ReadmeLine[] {
  const cutOff = openPeriodCutOff(request.period, request.timeZone, new Date(createdAt));
  return cutOff === null ? [] : [['PARTIAL PERIOD', partialNote(cutOff)]];
}

/**
 * A render's display zone beside the run's, in words (Read me and About sheet): the dates moved,
 * the period and its months did not (nor the gains computation).
 */
export function datesShownNote(shownIn: string, runZone: string): string {
  return `dates shown in ${shownIn}; the period and its months are those of ${runZone}, the zone of the run`;
}

/**
 * What a report of an open period holds, in words: the manifest, the Read me, the About sheet and
 * the CLI's summary all say it, so a month exported before its end is never taken for the month.
 */
export function partialNote(cutOff: Date): string {
  return `the period was not over when the export ran: these reports hold only the transactions up to ${cutOff.toISOString()} (the cut-off, when the export started), not the whole period; export it again once the period is over`;
}

/**
 * With the gains reports: each tax year the period touches and how much of it the period covers,
 * so a summary of part of a tax year is not taken for the whole year's.
 */
function taxYearLines(input: ReadmeInput): ReadmeLine[] {
  const { request } = input;
  if (request.gains === undefined) return [];
  const range = periodRange(request.period, request.timeZone);
  const options = resolveGainsOptions(
    gainsEngineOptions(request, { start: range.start.toJSDate(), end: range.end.toJSDate() }),
  );
  const years = createCoverage(coverageOptions(options)).years();
  const summaries = input.tables
    .filter((spec) => spec.csvOnly !== true && spec.columns.some((column) => column.key === 'covers'))
    .map((spec) => `"${spec.title}"`)
    .join(', ');
  const partial = years.filter((year) => !year.complete);
  return [
    [
      'Tax years',
      partial.length === 0
        ? `the period covers ${years.length === 1 ? 'the whole tax year' : 'whole tax years'} (tax years start on ${request.gains.taxYearStart}, month-day, in ${taxYearZone(request)}):`
        : `the period covers ONLY PART of ${partial.length === 1 ? 'a tax year' : 'some tax years'} (tax years start on ${request.gains.taxYearStart}, month-day, in ${taxYearZone(request)}); the totals of such a year are not the whole year's:`,
    ],
    ...years.map(
      (year): ReadmeLine => [
        '',
        `${year.label} (${year.first} to ${year.last}): ${year.complete ? 'the whole tax year' : `only ${year.span}, part of the tax year`}`,
      ],
    ),
    ['', `each row of ${summaries} says the same in its "Covers" column`],
  ];
}

function fileLines(input: ReadmeInput): ReadmeLine[] {
  const { request, baseName } = input;
  const lines: ReadmeLine[] = [['Files', 'every file of the run, in the same folder:']];
  lines.push([
    '',
    `${baseName}_snapshot.ndjson.gz: the data exactly as the service sent it (the audit record)`,
  ]);
  if (request.formats.includes('csv')) {
    for (const spec of input.tables) {
      lines.push(['', `${baseName}_${spec.name}.csv: ${spec.description ?? spec.title}`]);
    }
    lines.push(['', `${README_FILE}: this text`]);
  }
  if (request.formats.includes('xlsx')) {
    const sheets = input.tables
      .filter((spec) => spec.csvOnly !== true)
      .map((spec) => `"${spec.title}"`)
      .join(', ');
    lines.push([
      '',
      `${baseName}.xlsx: the same tables as sheets (${sheets}), this "Read me" first and an "About" sheet last (request, fetch, files written before it)`,
    ]);
  }
  for (const line of extraFileLines(request, baseName, input.taxPack === true)) lines.push(['', line]);
  lines.push([
    '',
    'manifest.json: written last; the request, counts, totals, and every other file with its size and sha256. A run without it is not finished',
  ]);
  return lines;
}

/** A table's lines: what a row is, then each column in one line (sheet header, CSV column, meaning). */
function tableLines(spec: TableSpec, input: ReadmeInput): ReadmeLine[] {
  const where = [
    ...(input.request.formats.includes('xlsx') && spec.csvOnly !== true ? [`sheet "${spec.title}"`] : []),
    ...(input.request.formats.includes('csv') ? [`file ${input.baseName}_${spec.name}.csv`] : []),
  ].join(', ');
  return [
    [spec.title, `${where}: ${spec.description ?? 'see the columns below'}`],
    ...spec.columns.flatMap((column) => columnLines(column, input.request.formats.includes('csv'))),
  ];
}

function columnLines(column: Column, csv: boolean): ReadmeLine[] {
  const meaning = columnMeaning(column);
  const own: ReadmeLine = ['', `${column.header} (CSV column ${column.key}): ${meaning}`];
  if (csv && hasOffsetColumn(column)) {
    return [
      own,
      [
        '',
        `${column.header}, offset (CSV column ${column.key}${OFFSET_SUFFIX}): CSV only; the offset from UTC of that date and time (UTC+02:00); the date less the offset is the instant in UTC`,
      ],
    ];
  }
  if (!(column.kind === 'decimal' && column.exact)) return [own];
  return [
    own,
    [
      '',
      `${column.header} (exact) (sheet only): the exact amount as text, filled where the number cell cannot show every digit (a spreadsheet number holds 15)`,
    ],
  ];
}

function signLines(request: ExportRequest): ReadmeLine[] {
  return [
    [
      'Signs',
      'Movements: a positive amount came into the portfolio, a negative one left it; its value has the same sign.',
    ],
    [
      '',
      'Transactions: In and Out list quantities without a sign; Value and Fee are as the service reports them (a fee is a cost, shown positive).',
    ],
    ['', 'By token: In and Out are positive totals; Net = In − Out.'],
    ...(request.reports.includes('gains')
      ? [
          [
            '',
            'Gains: a positive gain is a profit and a negative one a loss (gain = proceeds − cost).',
          ] as const,
        ]
      : []),
    [
      'Money',
      "Every amount of money is shown to its currency's minor unit (USD 2 decimals, JPY none), rounded once per transaction, half to even; sums and TOTAL rows add the rounded amounts, so they equal the rows as shown. A currency code that is not ISO 4217 keeps the decimals it was sent with.",
    ],
    [
      'Quantities',
      'Token quantities are never rounded: the CSV holds them exactly; a sheet cell shows at most 15 significant digits and its "(exact)" column the rest.',
    ],
  ];
}

/** How the gains reports round money, and where the exact figures are. */
function roundingLines(input: ReadmeInput): ReadmeLine[] {
  const { money } = input;
  if (money === null) return [];
  const rounded = input.tables.filter((spec) => spec.rounding !== undefined);
  const currency = money.currency;
  // With CSV asked for, `money.exact` names each exact figures' file, in table order.
  const exactFiles = Object.values(money.exact);
  return [
    [
      'Gains money',
      `${rounded.map((spec) => `"${spec.title}"`).join(', ')}: each line's money is rounded once, half to even, to the minor unit of ${currency ?? 'its currency'}; a disposal's gain is its rounded proceeds minus its rounded cost; every TOTAL is the sum of the rounded lines shown, so a SUM() of a column equals it to the cent.`,
    ],
    [
      '',
      input.request.formats.includes('csv')
        ? `The exact, unrounded figures are in ${exactFiles.join(', ')} (same rows, same order), for machines.`
        : 'The exact, unrounded figures come as CSV files (*_exact.csv), which this run did not write.',
    ],
  ];
}

function optionLines(request: ExportRequest, datesShownIn?: string): ReadmeLine[] {
  const filters = [
    ...(request.filters.tokens ? [`tokens ${request.filters.tokens.join(', ')}`] : []),
    ...(request.filters.category ? [`category ${request.filters.category}`] : []),
    ...(request.filters.hash ? [`hash ${request.filters.hash}`] : []),
  ];
  const protocols =
    request.protocols === undefined
      ? 'all transactions, in one search per window'
      : request.protocols === 'all'
        ? 'every protocol searched one by one, plus the transactions without one'
        : `only protocols ${request.protocols.join(', ')}`;
  const delimiter =
    { ',': 'comma', ';': 'semicolon', '\t': 'tab' }[request.csv.delimiter] ?? request.csv.delimiter;
  const lines: ReadmeLine[] = [
    ['Options', `reports: ${request.reports.join(', ')}; formats: ${request.formats.join(', ')}`],
    [
      '',
      datesShownIn === undefined
        ? `time zone ${request.timeZone}: the second date column, the months of the summary and the period are in it`
        : `time zone ${request.timeZone}: the months of the summary and the period are in it; the dates are shown in ${datesShownIn}`,
    ],
    ['', `filters: ${filters.length > 0 ? filters.join('; ') : 'none'}; protocols: ${protocols}`],
    [
      '',
      `CSV: fields separated by ${delimiter}, decimal ${request.csv.decimalSeparator === ',' ? 'comma' : 'point'}, UTF-8 with a byte order mark; header row = the CSV column names above; dates as the local date and time of their column's zone (2025-10-01T00:36:46${request.csv.decimalSeparator}000), without offset`,
    ],
  ];
  if (request.changesSince !== undefined) lines.push(['', `changes since ${request.changesSince}`]);
  if (request.conflictingCopies !== undefined) {
    lines.push(['', `a transaction sent twice with different content: ${request.conflictingCopies}`]);
  }
  const gains = request.gains;
  if (gains !== undefined) {
    lines.push(
      ['', `gains method: ${findLotMethod(gains.method)?.words ?? gains.method}`],
      ['', `gains pools: ${POOLS[gains.pooling] ?? gains.pooling}`],
      ['', `tax year starts on ${gains.taxYearStart} (month-day), in ${taxYearZone(request)}`],
      ['', `long term: held more than ${gains.longTermYears} year(s)`],
      ['', `fees: ${FEE_TREATMENT}`],
      ...gainsPolicyLines(gains).map((line): [string, string] => ['', line]),
    );
  }
  if (request.journal !== undefined)
    lines.push(
      ...journalReadmeLines(request.journal, request.gains?.method).map((line): [string, string] => [
        '',
        line,
      ]),
    );
  return lines;
}

const BROKER_WORDS: Record<string, string> = {
  none: 'no broker reported the disposals (no Form 1099-DA or 1099-B): box I (short term) and L (long term) from 2025, C and F before',
  'basis-reported':
    'a broker reported them with their basis (Form 1099-DA or 1099-B, basis reported to the IRS): box G and J from 2025, A and D before',
  'basis-not-reported': 'a broker reported them without their basis: box H and K from 2025, B and E before',
};

/** The rule set and the policies of the gains reports, in words (Read me). */
export function gainsPolicyLines(gains: NonNullable<ReadmeInput['request']['gains']>): string[] {
  return gainsPolicyPairs(gains).map(([topic, words]) => `${topic}: ${words}`);
}

/** The rule set and the policies of the gains reports as (topic, words) pairs (Read me and About sheet). */
export function gainsPolicyPairs(gains: NonNullable<ReadmeInput['request']['gains']>): [string, string][] {
  return [
    ['tax rules', findRuleSet(gains.taxRules)?.words ?? gains.taxRules],
    [
      'transfers between own accounts',
      `the two sides pair when at most ${gains.transferToleranceHours} hour(s) apart`,
    ],
    [
      'events at one instant',
      gains.sameInstantOrder === 'input'
        ? 'in the order the service sent them'
        : 'acquisitions first, then moves, then disposals',
    ],
    [
      'lending, liquidity and staking moves',
      gains.protocolMoves === 'taxable'
        ? 'disposals and acquisitions at value'
        : 'non-taxable moves that keep the lots',
    ],
    [
      'transfers in from outside the portfolio',
      gains.transferInBasis === 'market-value'
        ? 'basis = market value at receipt'
        : 'basis zero, with a "missing cost basis" warning',
    ],
    [
      'a fiat fee on a transfer between own accounts',
      gains.transferFee === 'dropped' ? 'not counted' : "added to the moved lots' basis",
    ],
    ['figures in', currencyWords(gains.taxRules, gains.currency ?? null, gains.rates !== undefined)],
    ...(gains.rates === undefined
      ? []
      : ([['currency conversion', conversionWords(gains.rates, gains.currency ?? '', gains.taxRules)]] as [
          string,
          string,
        ][])),
    ...(gains.pooling === 'wallet-from-2025'
      ? ([['unused basis on 1 January 2025', ALLOCATION_WORDS[gains.walletAllocation ?? 'records']]] as [
          string,
          string,
        ][])
      : []),
    ...brokerLines(gains.brokerReporting),
  ];
}

const ALLOCATION_WORDS: Record<string, string> = {
  records:
    'each wallet keeps the units its records hold with their own lots; basis a sale from another wallet left unused goes to the units whose basis it used, by lot order (see the allocation statement)',
  'account-order':
    'accounts in the alphabetical order of their ids fill their holdings from the pool (the rule of earlier versions: renaming an account changes it)',
};

/** The Form 8949 box lines: one for every account, or the default and each account named. */
function brokerLines(reporting: GainsRequestOptions['brokerReporting']): [string, string][] {
  if (reporting === undefined) return [];
  const words = (value: string) => BROKER_WORDS[value] ?? value;
  if (typeof reporting === 'string') return [['Form 8949 box', words(reporting)]];
  return [
    ['Form 8949 box, accounts not listed below', words(reporting.default)],
    ...Object.entries(reporting.accounts).map(([account, value]): [string, string] => [
      `Form 8949 box, account ${account}`,
      words(value),
    ]),
  ];
}

/** The currency of the figures, and a warning when it is not the rule set's. */
function currencyWords(taxRules: string, currency: string | null, converted: boolean): string {
  const own = ruleSet(taxRules).currency;
  if (converted && currency !== null)
    return `${currency} (values in other currencies converted into it at published rates: see "currency conversion")`;
  if (currency === null)
    return own === null
      ? "the data's own currency (not checked, not converted)"
      : `the data's own currency, not checked (${taxRules} rules compute in ${own}: convert before filing)`;
  if (own === null || own === currency) return `${currency} (every value of the data checked to be in it)`;
  return `${currency}, the data's currency, by explicit choice (${taxRules} rules compute in ${own}: convert at each transaction's rate before filing)`;
}

/** The Read me as the workbook's sheet: two columns, topic and text (the text wraps). */
export function readmeTable(input: ReadmeInput): TableSource {
  const lines = readmeLines(input);
  return {
    spec: {
      name: 'readme',
      title: 'Read me',
      description: 'this guide',
      columns: [
        { key: 'topic', header: 'Topic', kind: 'text' },
        { key: 'text', header: 'Text', kind: 'text', wrap: true, width: 100 },
      ],
    },
    async *rows(): AsyncGenerator<Row> {
      yield* lines;
    },
  };
}

/** The Read me as plain text (`README.txt`), lines ending in CRLF so Windows Notepad shows them. */
export function readmeText(input: ReadmeInput): string {
  const lines = readmeLines(input).map(([topic, text]) =>
    topic === '' ? `    ${text}` : text === '' ? topic : `${topic}: ${text}`,
  );
  return `${lines.join('\r\n')}\r\n`;
}
