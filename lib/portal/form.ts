/**
 * The "Request an export" form: its fields as the page posts them (every value a list of
 * strings, as `FormData.getAll` gives them) turned into an export request for `POST /reports`,
 * and the API's issues (field paths of the same schema) placed beside the form's fields.
 */
import { FORMATS, LOT_METHODS, REPORTS } from '../export/index.ts';
import { TAX_RULES } from '../gains/index.ts';

/** What the page posts: field name → the values of that name. */
export type FormFields = Record<string, string[]>;

/** The form's fields, by the request field each one fills (the API names issues by these paths). */
export const FIELDS = {
  period: 'period',
  periodFrom: 'period.from',
  periodTo: 'period.to',
  timeZone: 'timeZone',
  reports: 'reports',
  changesSince: 'changesSince',
  formats: 'formats',
  taxRules: 'gains.taxRules',
  method: 'gains.method',
  taxYearStart: 'gains.taxYearStart',
  protocolMoves: 'gains.protocolMoves',
  currency: 'gains.currency',
  ratesSource: 'gains.rates.source',
  csv: 'csv',
} as const;

/**
 * The CSV dialects the form offers, by the value it posts: what a spreadsheet in the reader's
 * language opens without asking (`''`: the request's default, comma and decimal point).
 */
export const CSV_DIALECTS = {
  '': { label: 'Comma, decimal point (default)', csv: undefined },
  semicolon: { label: 'Semicolon, decimal comma', csv: { delimiter: ';', decimalSeparator: ',' } },
  tab: { label: 'Tab, decimal point', csv: { delimiter: '\t', decimalSeparator: '.' } },
} as const;

/**
 * Which spreadsheets each CSV dialect is for: the select's hint (the options stay short, so a
 * phone shows each whole in the select).
 */
export const CSV_DIALECTS_HINT =
  'Comma and decimal point: English-language spreadsheets. Semicolon and decimal comma: German, French and other European spreadsheets. Tab: any program that reads tab-separated text.';

/** The request's `csv` for a posted dialect; an unknown one is passed on for the API to refuse. */
function csvOf(dialect: string | undefined): unknown {
  if (dialect === undefined) return undefined;
  return Object.hasOwn(CSV_DIALECTS, dialect)
    ? CSV_DIALECTS[dialect as keyof typeof CSV_DIALECTS].csv
    : { delimiter: dialect };
}

/** The first value of a field, trimmed; `undefined` when absent or blank. */
function text(fields: FormFields, name: string): string | undefined {
  const value = fields[name]?.[0]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The export request the form describes. Blank fields are left out (the schema's defaults
 * apply); nothing is validated here: the API validates with the export request's schema.
 */
export function requestFromForm(profile: string, fields: FormFields): Record<string, unknown> {
  const from = text(fields, FIELDS.periodFrom);
  const to = text(fields, FIELDS.periodTo);
  const period =
    text(fields, FIELDS.period) ?? (from !== undefined || to !== undefined ? { from, to } : undefined);
  const reports = fields[FIELDS.reports] ?? [];
  const request: Record<string, unknown> = {
    profile,
    period,
    timeZone: text(fields, FIELDS.timeZone),
    reports,
    formats: fields[FIELDS.formats] ?? [],
    changesSince: text(fields, FIELDS.changesSince),
    csv: csvOf(text(fields, FIELDS.csv)),
  };
  // The journal is built from the gains engine: the gains fields apply to it too.
  if (reports.includes('gains') || reports.includes('journal')) {
    request.gains = {
      taxRules: text(fields, FIELDS.taxRules),
      method: text(fields, FIELDS.method),
      taxYearStart: text(fields, FIELDS.taxYearStart),
      protocolMoves: text(fields, FIELDS.protocolMoves),
      currency: text(fields, FIELDS.currency),
      // The source only: the run converts with the newest kept file of each name, and records them.
      rates: ratesOf(text(fields, FIELDS.ratesSource)),
    };
  }
  return JSON.parse(JSON.stringify(request)) as Record<string, unknown>;
}

/** `gains.rates` for a posted rates source (blank: no conversion); the API validates the source. */
function ratesOf(source: string | undefined): { source: string } | undefined {
  return source === undefined ? undefined : { source };
}

/** Issues by the form field they belong to; those of no field under `''` (shown above the form). */
export function issuesByField(issues: readonly { field: string; reason: string }[]): Map<string, string[]> {
  const known = new Set<string>(Object.values(FIELDS));
  const placed = new Map<string, string[]>();
  for (const { field, reason } of issues) {
    // `reports[2]` belongs beside `reports`; `period` issues of a range beside from/to.
    // `gains.rates` (none kept, no currency to convert into) beside the rates source.
    const name = field
      .replace(/\[\d+\]$/, '')
      .replace(/^csv\..*$/, FIELDS.csv)
      .replace(/^gains\.rates(\..*)?$/, FIELDS.ratesSource);
    const key = known.has(name) ? name : '';
    placed.set(key, [...(placed.get(key) ?? []), key === '' ? `${field}: ${reason}` : reason]);
  }
  return placed;
}

/** What the form offers. */
export const CHOICES = { reports: REPORTS, formats: FORMATS, taxRules: TAX_RULES, methods: LOT_METHODS };
