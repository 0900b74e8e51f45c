import { PbsExportError, ValidationError } from '../errors.ts';
import { RequestValidationError } from '../export/index.ts';
import { GAINS_TEXT_FLAGS } from './args.ts';

/**
 * The flag of each request field the CLI builds (request field path without indexes → flag), so
 * an invalid request is reported in the words the user typed. The HTTP API keeps the field paths.
 */
const FIELD_FLAGS: Record<string, string> = {
  profile: '--profile',
  period: '--period',
  'period.from': '--period',
  'period.to': '--period',
  timeZone: '--time-zone',
  reports: '--report',
  changesSince: '--changes-since',
  formats: '--format',
  'filters.tokens': '--token',
  'filters.category': '--category',
  'filters.hash': '--hash',
  protocols: '--protocol',
  window: '--window',
  'gains.longTermYears': '--long-term-years',
  'gains.transferToleranceHours': '--transfer-tolerance-hours',
  'csv.delimiter': '--delimiter',
  'csv.decimalSeparator': '--decimal-separator',
  conflictingCopies: '--conflicting-copies',
  'gains.brokerReporting': '--broker-reporting',
  'gains.rates': '--rates',
  ...Object.fromEntries(
    Object.entries(GAINS_TEXT_FLAGS).map(([flag, field]) => [`gains.${field}`, `--${flag}`]),
  ),
};

/** Field names as reasons quote them (`taxRules "us"`, `reports include "changes"`) → flags. */
const REASON_WORDS: [RegExp, string][] = [
  [/\breports include\b/g, '--report includes'],
  ...Object.entries(FIELD_FLAGS)
    .filter(([field]) => /[A-Z]/.test(field.split('.').pop() ?? ''))
    .map(([field, flag]): [RegExp, string] => [new RegExp(`\\b${field.split('.').pop()}\\b`, 'g'), flag]),
  [/\bdelimiter and\b/g, '--delimiter and'],
  [/\bgains\.currency\b/g, '--gains-currency'],
];

/**
 * The flags of the journal block's parts, by field path prefix: a file's content is checked
 * field by field (`journal.settings.datev.consultantNumber`), and the user gave the file's flag.
 */
const JOURNAL_FLAGS: [string, string][] = [
  ['journal.settings', '--journal-settings'],
  ['journal.chart', '--journal-chart'],
  ['journal.formats', '--journal-format'],
  ['journal.rollup', '--journal-rollup'],
];

/** The flag a request field path (e.g. `filters.tokens[1]`) comes from, if the CLI sets it. */
export function flagOfField(field: string): string | undefined {
  const path = field.replace(/\[\d+\]/g, '');
  return (
    FIELD_FLAGS[path] ??
    JOURNAL_FLAGS.find(([prefix]) => path === prefix || path.startsWith(`${prefix}.`))?.[1]
  );
}

/** `reason` with the request field names it quotes replaced by their flags. */
function inFlagWords(reason: string): string {
  return REASON_WORDS.reduce((text, [word, flag]) => text.replace(word, flag), reason);
}

/** The value at a formatted field path (`reports[1]`, `filters.tokens[0]`) of the request input. */
function valueAt(input: unknown, field: string): unknown {
  let value = input;
  for (const key of field.split(/[.[\]]+/).filter((part) => part !== '')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The gains flags given on the command line, for a refusal of the gains options as a whole. */
function gainsFlagsGiven(input: Record<string, unknown>): string {
  const gains = (input.gains ?? {}) as Record<string, unknown>;
  const flags = Object.keys(gains)
    .map((key) => FIELD_FLAGS[`gains.${key}`])
    .filter((flag) => flag !== undefined);
  return flags.length > 0 ? flags.join(', ') : 'the gains flags';
}

/** The forms `--period` takes, as the user types them. */
const PERIOD_FORMS = 'a month (2025-10), a year (2025) or a range of days (2025-01-05..2025-02-10)';

/**
 * An issue of the request's period in the words of `--period`: its forms are the CLI's (`A..B`),
 * not the request's `{from, to}`, and a range's day at fault is said to be its first or last.
 */
function periodLine(issue: { field: string; reason: string }, input: Record<string, unknown>): string {
  const period = input.period;
  if (period === undefined) return `--period: is required: ${PERIOD_FORMS}`;
  const range = period as { from?: unknown; to?: unknown };
  const typed = typeof period === 'string' ? period : `${String(range.from)}..${String(range.to)}`;
  const flag = `--period ${quote(typed)}`;
  if (issue.reason.includes('{from, to}')) return `${flag}: expected ${PERIOD_FORMS}`;
  if (issue.field === 'period.to' && issue.reason === 'must not be before from')
    return `${flag}: the range's last day is before its first (FIRST..LAST)`;
  const side = { 'period.from': "the range's first day: ", 'period.to': "the range's last day: " }[
    issue.field
  ];
  return `${flag}: ${side ?? ''}${issue.reason}`;
}

/**
 * An issue of a journal file's content (`--journal-settings`, `--journal-chart`) in the words of
 * its flag: the path inside the file; without the file, how to give it.
 */
function journalFileLine(
  flag: string,
  issue: { field: string; reason: string },
  input: Record<string, unknown>,
): string {
  const inside = issue.field.split('.').slice(2);
  if (inside.length === 0) return `${flag}: ${issue.reason}`;
  const missing = valueAt(input, issue.field) === undefined;
  // zod's "Invalid input" for a value that is not there says nothing more.
  const why = missing && /^Invalid input\b/.test(issue.reason) ? 'is required' : issue.reason;
  const line = `${flag}: ${inside.join('.')}: ${why}`;
  if (valueAt(input, issue.field.split('.').slice(0, 2).join('.')) !== undefined) return line;
  // No file given: the JSON it needs, e.g. {"datev": {"consultantNumber": …}}.
  const shape = inside.reduceRight((inner, key) => `{${JSON.stringify(key)}: ${inner}}`, '…');
  return `${line} (give ${flag} FILE, a JSON file such as ${shape})`;
}

/**
 * An invalid request in the CLI's words: each issue names its flag (and, for a repeated flag, the
 * value at fault) instead of the request's field path. Other errors are returned as they are.
 */
export function inCliWords(error: unknown, input: Record<string, unknown>): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  const lines = error.issues.map((issue) => {
    if (issue.field === 'period' || issue.field.startsWith('period.')) return periodLine(issue, input);
    const reason = inFlagWords(issue.reason);
    if (issue.field === 'gains') return `${gainsFlagsGiven(input)}: ${reason}`;
    const flag = flagOfField(issue.field);
    if (flag === undefined) return `${issue.field}: ${reason}`;
    if (flag === '--journal-settings' || flag === '--journal-chart')
      return journalFileLine(flag, { field: issue.field, reason }, input);
    const value = /\[\d+\]$/.test(issue.field) ? valueAt(input, issue.field) : undefined;
    return `${flag}${typeof value === 'string' ? ` ${quote(value)}` : ''}: ${reason}`;
  });
  const first = error.issues[0];
  const wrapped = new ValidationError(flagOfField(first?.field ?? '') ?? first?.field ?? 'arguments', '', {
    cause: error,
  });
  wrapped.message = lines.join('; ');
  return wrapped;
}

/**
 * One line for an error: the project's own errors by their message; a system error (a file that
 * is not there) by its message without Node's `Error:` prefix or stack.
 */
export function describeError(error: unknown): string {
  if (error instanceof PbsExportError) return error.message;
  if (error instanceof Error)
    return error.name === 'Error' ? error.message : `${error.name}: ${error.message}`;
  return String(error);
}

/** A value quoted for a message: JSON-escaped (controls visible) and cut at 40 characters. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}
