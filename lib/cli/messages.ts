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

/** The flag a request field path (e.g. `filters.tokens[1]`) comes from, if the CLI sets it. */
export function flagOfField(field: string): string | undefined {
  return FIELD_FLAGS[field.replace(/\[\d+\]/g, '')];
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

/** What a run without `--period` is told. */
const PERIOD_REQUIRED =
  'is required: a month (2025-10), a year (2025) or a range of days (2025-01-05..2025-02-10)';

/**
 * An invalid request in the CLI's words: each issue names its flag (and, for a repeated flag, the
 * value at fault) instead of the request's field path. Other errors are returned as they are.
 */
export function inCliWords(error: unknown, input: Record<string, unknown>): unknown {
  if (!(error instanceof RequestValidationError)) return error;
  const lines = error.issues.map((issue) => {
    if (issue.field === 'period' && input.period === undefined) return `--period: ${PERIOD_REQUIRED}`;
    const reason = inFlagWords(issue.reason);
    if (issue.field === 'gains') return `${gainsFlagsGiven(input)}: ${reason}`;
    const flag = flagOfField(issue.field);
    if (flag === undefined) return `${issue.field}: ${reason}`;
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
