import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';

/** Where the files go. */
export type Destination =
  | { kind: 'folder'; dir: string }
  | { kind: 's3'; bucket: string; prefix: string; endpoint?: string; region?: string };

/** Where the data comes from. */
export type ServiceChoice =
  /** The embedded simulator on a loopback port, with its demo data. */
  | { kind: 'simulator'; transactions?: number; seed?: number }
  /** The real service, from `PBS_*` environment variables and/or a config file. */
  | { kind: 'service'; configFile?: string };

export interface RunCommand {
  command: 'run';
  /** Export request input, validated later by `parseExportRequest`. */
  request: Record<string, unknown>;
  service: ServiceChoice;
  destination: Destination;
  concurrency?: number;
}

export interface RenderCommand {
  command: 'render';
  snapshot: string;
  destination: Destination;
  /** Overrides the snapshot's formats. */
  formats?: string[];
  configFile?: string;
}

export interface HelpCommand {
  command: 'help';
}

export type CliCommand = RunCommand | RenderCommand | HelpCommand;

export const USAGE = `Usage:
  pbs-export run [options]       Export a portfolio's reports
  pbs-export render --snapshot FILE [--out DIR | --s3 URL]
                                 Rebuild the reports from a raw snapshot, without the service

Request:
  --profile NAME                 Portfolio (profile) name                       (default: demo)
  --period P                     2025-10 (month), 2025 (year), or 2025-01-05..2025-02-10
  --time-zone ZONE               IANA time zone of the period and dates         (default: UTC)
  --report R                     transactions, movements, summary, changes, gains
                                 (repeat or comma-separate)
  --changes-since DATE           Timeline changes since DATE (with --report changes)
  --format F                     csv, xlsx (repeat or comma-separate)           (default: both)
  --token T                      Only transactions moving token T (repeatable)
  --category CF                  Only this category (cf)
  --protocol P                   One search per protocol (repeatable); "all" = every protocol
  --hash H                       Only this transaction hash (the service then ignores other filters)
  --window W                     month, week, day or year                       (default: month)
  --gains-method M               gains: fifo, lifo, hifo or average             (default: fifo)
  --gains-pooling P              gains: universal or account                    (default: universal)
  --tax-year-start MM-DD         gains: first day of the tax year, e.g. 04-06   (default: 01-01)
  --long-term-years N            gains: held longer than N years is long term   (default: 1)
  --delimiter D                  CSV delimiter: , ; or tab                      (default: ,)
  --decimal-separator S          CSV decimal separator: . or ,                  (default: .)

Service:
  --simulator                    Use the embedded simulator (the default when no service is configured)
  --transactions N               Simulator: transactions in the demo profile
  --config FILE                  Service settings (JSON); PBS_BASE_URL, PBS_API_KEY, PBS_API_SECRET,
                                 PBS_PROFILE_GUID override it
  --concurrency N                Shards fetched at once                         (default: 4)

Output:
  --out DIR                      Local folder                                   (default: ./out)
  --s3 s3://bucket/prefix        S3 or an S3-compatible store
  --s3-endpoint URL              Endpoint of an S3-compatible store
  --s3-region REGION             Region                                         (default: us-east-1)
`;

const options = {
  profile: { type: 'string' },
  period: { type: 'string' },
  'time-zone': { type: 'string' },
  report: { type: 'string', multiple: true },
  'changes-since': { type: 'string' },
  format: { type: 'string', multiple: true },
  token: { type: 'string', multiple: true },
  category: { type: 'string' },
  protocol: { type: 'string', multiple: true },
  hash: { type: 'string' },
  window: { type: 'string' },
  'gains-method': { type: 'string' },
  'gains-pooling': { type: 'string' },
  'tax-year-start': { type: 'string' },
  'long-term-years': { type: 'string' },
  delimiter: { type: 'string' },
  'decimal-separator': { type: 'string' },
  simulator: { type: 'boolean' },
  transactions: { type: 'string' },
  seed: { type: 'string' },
  config: { type: 'string' },
  concurrency: { type: 'string' },
  out: { type: 'string' },
  s3: { type: 'string' },
  's3-endpoint': { type: 'string' },
  's3-region': { type: 'string' },
  snapshot: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Parses the command line into a command. Throws `ValidationError` naming the flag and the
 * reason; the export request itself is validated later, field by field, by the request schema.
 */
export function parseCommandLine(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): CliCommand {
  let parsed: ReturnType<
    typeof parseArgs<{ options: typeof options; allowPositionals: true; args: string[] }>
  >;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new ValidationError('arguments', (error as Error).message, { cause: error });
  }
  const { values, positionals } = parsed;
  const command = positionals[0] ?? 'help';
  if (values.help || command === 'help') return { command: 'help' };
  if (positionals.length > 1)
    throw new ValidationError('arguments', `unexpected argument "${positionals[1]}"`);
  const destination = parseDestination(values.out, values.s3, values['s3-endpoint'], values['s3-region']);

  if (command === 'render') {
    if (values.snapshot === undefined) throw new ValidationError('--snapshot', 'is required by render');
    return {
      command: 'render',
      snapshot: values.snapshot,
      destination,
      ...(values.format ? { formats: splitList(values.format) } : {}),
      ...(values.config !== undefined ? { configFile: values.config } : {}),
    };
  }
  if (command !== 'run')
    throw new ValidationError('command', `unknown command "${command}" (run, render, help)`);

  const configured = values.config !== undefined || (env.PBS_BASE_URL ?? '') !== '';
  const service: ServiceChoice =
    values.simulator || !configured
      ? {
          kind: 'simulator',
          ...optionalInt('--transactions', values.transactions, 'transactions'),
          ...optionalInt('--seed', values.seed, 'seed'),
        }
      : { kind: 'service', ...(values.config !== undefined ? { configFile: values.config } : {}) };
  return {
    command: 'run',
    request: requestInput(values),
    service,
    destination,
    ...optionalInt('--concurrency', values.concurrency, 'concurrency'),
  };
}

function requestInput(values: Record<string, unknown>): Record<string, unknown> {
  const text = (name: string) => values[name] as string | undefined;
  const list = (name: string) => values[name] as string[] | undefined;
  const request: Record<string, unknown> = { profile: text('profile') ?? 'demo' };
  const period = text('period');
  if (period !== undefined) {
    const range = /^(.+)\.\.(.+)$/.exec(period);
    request.period = range ? { from: range[1], to: range[2] } : period;
  }
  if (text('time-zone') !== undefined) request.timeZone = text('time-zone');
  if (list('report')) request.reports = splitList(list('report') ?? []);
  if (text('changes-since') !== undefined) request.changesSince = text('changes-since');
  if (list('format')) request.formats = splitList(list('format') ?? []);
  const filters: Record<string, unknown> = {};
  if (list('token')) filters.tokens = list('token');
  if (text('category') !== undefined) filters.category = text('category');
  if (text('hash') !== undefined) filters.hash = text('hash');
  if (Object.keys(filters).length > 0) request.filters = filters;
  const protocols = list('protocol');
  if (protocols) request.protocols = protocols.length === 1 && protocols[0] === 'all' ? 'all' : protocols;
  if (text('window') !== undefined) request.window = text('window');
  const gains: Record<string, unknown> = {};
  if (text('gains-method') !== undefined) gains.method = text('gains-method');
  if (text('gains-pooling') !== undefined) gains.pooling = text('gains-pooling');
  if (text('tax-year-start') !== undefined) gains.taxYearStart = text('tax-year-start');
  const longTermYears = text('long-term-years');
  if (longTermYears !== undefined)
    gains.longTermYears = /^\d+$/.test(longTermYears) ? Number(longTermYears) : longTermYears;
  if (Object.keys(gains).length > 0) request.gains = gains;
  const csv: Record<string, unknown> = {};
  if (text('delimiter') !== undefined) csv.delimiter = text('delimiter') === 'tab' ? '\t' : text('delimiter');
  if (text('decimal-separator') !== undefined) csv.decimalSeparator = text('decimal-separator');
  if (Object.keys(csv).length > 0) request.csv = csv;
  return request;
}

function parseDestination(
  out: string | undefined,
  s3: string | undefined,
  endpoint: string | undefined,
  region: string | undefined,
): Destination {
  if (out !== undefined && s3 !== undefined)
    throw new ValidationError('--s3', 'give either --out or --s3, not both');
  if (s3 === undefined) {
    if (endpoint !== undefined) throw new ValidationError('--s3-endpoint', 'needs --s3');
    return { kind: 'folder', dir: out ?? 'out' };
  }
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(s3);
  if (!match) throw new ValidationError('--s3', 'must look like s3://bucket/prefix');
  return {
    kind: 's3',
    bucket: match[1] as string,
    prefix: (match[2] ?? '').replace(/\/+$/, ''),
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(region !== undefined ? { region } : {}),
  };
}

function splitList(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((value) => value.trim());
}

function optionalInt<K extends string>(
  flag: string,
  value: string | undefined,
  key: K,
): Partial<Record<K, number>> {
  if (value === undefined) return {};
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new ValidationError(flag, `must be a positive integer, got "${value}"`);
  }
  return { [key]: Number(value) } as Partial<Record<K, number>>;
}
