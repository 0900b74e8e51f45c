import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';
import { DEFAULT_JOURNAL_FORMATS, LEDGER_FORMATS } from '../ledger/index.ts';
import { ADJUSTMENTS_USAGE } from './adjustments-command.ts';
import { parseRatesFlags, type RatesFlag } from './rates.ts';
import { RATES_USAGE } from './rates-command.ts';
import { closestFlag } from './suggest.ts';
import { VERIFY_USAGE } from './verify-command.ts';

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
  /** `--rates`: the published rates files that convert the gains' values. */
  rates?: RatesFlag[];
  /** `--adjustments`: the preparer's adjustments file (lib/adjustments) the gains figures use. */
  adjustments?: string;
  /** `--signing-key`: an ECDSA P-256 private key (PEM) that signs the manifest (README: Proof). */
  signingKey?: string;
}

export interface RenderCommand {
  command: 'render';
  snapshot: string;
  destination: Destination;
  /**
   * Request fields of the flags that change only how the snapshot is shown (formats, CSV dialect,
   * reports, gains options), as given: validated later against the snapshot's request.
   */
  presentation: Record<string, unknown>;
  /** `--rates`: the rates files the snapshot's run was made with. */
  rates?: RatesFlag[];
  /** `--adjustments`: the adjustments file the gains figures use (the one the manifest names, if it names one). */
  adjustments?: string;
  /** `--manifest`: the snapshot's run's manifest (default: `manifest.json` beside the snapshot, if there). */
  manifest?: string;
  /** `--signing-key`: signs the manifest, as for `run`. */
  signingKey?: string;
}

export interface HelpCommand {
  command: 'help';
  /** No command was given (`pbs-export --period 2025`): the usage is shown as an error (exit 2). */
  missingCommand?: true;
}

export interface VersionCommand {
  command: 'version';
}

export type CliCommand = RunCommand | RenderCommand | HelpCommand | VersionCommand;

/** The usage line of `run`. */
export const RUN_USAGE = `  pbs-export run [options]       Export a portfolio's reports
`;

/** The usage lines of `render`. */
export const RENDER_USAGE = `  pbs-export render --snapshot FILE [--out DIR | --s3 URL] [presentation options]
                                 Rebuild the reports from a raw snapshot, without the service:
                                 --format, --delimiter, --decimal-separator, --report (those the
                                 snapshot holds the data of) and the gains options apply; flags
                                 that would need a new fetch are refused
`;

/** The column where the usage's descriptions start, and the width they wrap at. */
const DESCRIPTION_COLUMN = 33;
const USAGE_WIDTH = 100;

/** A flag's usage entry: `name` and its description wrapped at {@link USAGE_WIDTH}, indented. */
function flagEntry(name: string, description: string): string {
  const lines: string[] = [];
  let line = `  ${name}`.padEnd(DESCRIPTION_COLUMN);
  for (const word of description.split(' ')) {
    if (line.trim() !== name && line.length + 1 + word.length > USAGE_WIDTH) {
      lines.push(line);
      line = ' '.repeat(DESCRIPTION_COLUMN);
    }
    line += line.endsWith(' ') ? word : ` ${word}`;
  }
  return `${[...lines, line].join('\n')}\n`;
}

/** `--journal-format`'s entry: every registered ledger format, so a new one is listed at once. */
const JOURNAL_FORMAT_USAGE = flagEntry(
  '--journal-format F',
  `journal: ${LEDGER_FORMATS.map((format) => format.id).join(', ')} (repeat or comma-separate;` +
    ` default: ${DEFAULT_JOURNAL_FORMATS.join(', ')})`,
);

/** The flags of `run` and `render`, by group. */
export const FLAGS_USAGE = `Request:
  --profile NAME                 Portfolio (profile) name; required against the real service
                                 (default with the simulator: demo)
  --period P                     Required: 2025-10 (month), 2025 (year), or 2025-01-05..2025-02-10
  --time-zone ZONE               IANA time zone of the period and dates         (default: UTC)
                                 (render: of the dates shown only; the period stays the run's;
                                 --tax-rules uk/de: Europe/London/Europe/Berlin, no other)
  --report R                     transactions, movements, summary, changes, gains, journal
                                 (repeat or comma-separate)
  --changes-since DATE           Timeline changes since DATE (with --report changes)
  --format F                     csv, xlsx (repeat or comma-separate)           (default: both)
  --token T                      Only transactions moving token T (repeatable)
  --category CF                  Only this category (cf)
  --protocol P                   One search per protocol (repeatable); "all" = every protocol
  --hash H                       Only this transaction hash (the service then ignores other filters)
  --window W                     month, week, day or year                       (default: month)
  --tax-rules R                  gains: generic, us, uk or de; a rule set fixes what its law
                                 fixes and refuses contradicting options        (default: generic)
  --gains-method M               gains: fifo, lifo, hifo, average or hmrc       (default: fifo;
                                 uk: hmrc)
  --gains-pooling P              gains: universal, account or wallet-from-2025  (default: universal;
                                 de: account, us: wallet-from-2025)
  --tax-year-start MM-DD         gains: first day of the tax year, e.g. 04-06   (default: 01-01;
                                 uk: 04-06)
  --long-term-years N            gains: held longer than N years is long term   (default: 1)
  --same-instant-order O         gains: events at one instant in input order, or
                                 acquisitions-first                             (default: input)
  --protocol-moves T             gains: lending supply/withdraw, liquidity add/remove, staking
                                 delegate/undelegate as taxable exchanges at value, or as
                                 non-taxable moves that keep the lots           (default: taxable)
  --transfer-in-basis B          gains: basis of a transfer in from outside: market-value, or
                                 zero (with a missing cost basis warning)       (default: market-value)
  --transfer-fee F               gains: fiat fee on a transfer between own accounts: dropped, or
                                 added to the moved lots' basis                 (default: dropped)
  --transfer-tolerance-hours H   gains: largest time between the two sides of a transfer between
                                 own accounts                                   (default: 24)
  --gains-currency CODE          gains: currency the data's values must be in (not converted);
                                 another than the rule set's computes in it anyway
                                 (default: uk GBP, de EUR, us USD; generic: not checked)
  --broker-reporting [ACCOUNT=]B gains, us only: what a broker reported, which picks the Form 8949
                                 box: none, basis-reported or basis-not-reported; with ACCOUNT= for
                                 that account only (repeatable)                 (default: none)
  --wallet-allocation A          gains, wallet-from-2025: basis on 1 January 2025 by the wallets'
                                 records, or by account-order                   (default: records)
  --rates [ecb:|hmrc:]FILE       gains: convert values not in the gains currency at the published
                                 rates of this file (ECB eurofxref CSV, ZIP or XML; HMRC monthly
                                 XML or CSV); repeatable, one source (render: the run's files)
  --adjustments FILE             gains: apply the preparer's adjustments (an adjustments-v<N>.json:
                                 transfer pairs, cost bases, values, spam, opening lots); render:
                                 the file the run's manifest names (its SHA-256 is checked)
  --manifest FILE                render: the run's manifest (default: manifest.json beside the
                                 snapshot, when there)
  --delimiter D                  CSV delimiter: , ; or tab                      (default: ,)
  --decimal-separator S          CSV decimal separator: . or ,                  (default: .)
  --conflicting-copies C         An id sent twice with different content: fail, first or last
                                 (which copy the reports keep)                  (default: fail)
${JOURNAL_FORMAT_USAGE}  --journal-chart FILE           journal: chart of accounts (JSON, the request's journal.chart)
  --journal-settings FILE        journal: the formats' settings (JSON, the request's journal.settings,
                                 e.g. {"datev": {"consultantNumber": 1001, "clientNumber": 1}})
  --journal-rollup               journal: one entry per month and account, not per transaction

Service:
  --simulator                    Use the embedded simulator (the default when no service is configured)
  --transactions N               Simulator: transactions in the demo profile (at most 50000000)
  --seed N                       Simulator: seed of its generated data, 0 to 4294967295  (default: 1)
  --config FILE                  Service settings (JSON); PBS_BASE_URL, PBS_API_KEY, PBS_API_SECRET,
                                 PBS_PROFILE_GUID override it
  --concurrency N                Requests in flight (and shards open) at once   (default: 4)

Output:
  --out DIR                      Local folder                                   (default: ./out)
  --s3 s3://bucket/prefix        S3 or an S3-compatible store
  --s3-endpoint URL              Endpoint of an S3-compatible store
  --s3-region REGION             Region                                         (default: us-east-1)
  --signing-key FILE             Sign the manifest with this ECDSA P-256 private key (PEM); the
                                 public key is published at signing/<fingerprint>.pem (verify)
`;

/** The usage of every command but the closing ones (`CLOSE_USAGE`), and the flags of `run` and `render`. */
export const USAGE = `Usage:
${RUN_USAGE}${RENDER_USAGE}${ADJUSTMENTS_USAGE}${RATES_USAGE}${VERIFY_USAGE}  pbs-export --version           Print the version
  pbs-export help [COMMAND]      This help, or one command's (also: pbs-export COMMAND --help)

${FLAGS_USAGE}`;

/** Largest `--transactions`: what the simulator accepts (it indexes transactions with typed arrays). */
export const MAX_SIMULATED_TRANSACTIONS = 50_000_000;
/** Largest `--seed`: the simulator's seeds are unsigned 32-bit integers. */
export const MAX_SEED = 0xffff_ffff;

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
  'tax-rules': { type: 'string' },
  'gains-method': { type: 'string' },
  'gains-pooling': { type: 'string' },
  'tax-year-start': { type: 'string' },
  'long-term-years': { type: 'string' },
  'same-instant-order': { type: 'string' },
  'protocol-moves': { type: 'string' },
  'transfer-in-basis': { type: 'string' },
  'transfer-fee': { type: 'string' },
  'transfer-tolerance-hours': { type: 'string' },
  'gains-currency': { type: 'string' },
  'broker-reporting': { type: 'string', multiple: true },
  'wallet-allocation': { type: 'string' },
  rates: { type: 'string', multiple: true },
  adjustments: { type: 'string' },
  'signing-key': { type: 'string' },
  manifest: { type: 'string' },
  delimiter: { type: 'string' },
  'decimal-separator': { type: 'string' },
  'conflicting-copies': { type: 'string' },
  'journal-format': { type: 'string', multiple: true },
  'journal-chart': { type: 'string' },
  'journal-settings': { type: 'string' },
  'journal-rollup': { type: 'boolean' },
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
  version: { type: 'boolean', short: 'V' },
} as const;

/** Every flag's name, for the suggestion made for a misspelt one (and the help's completeness test). */
export const FLAG_NAMES: readonly string[] = Object.keys(options);

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
    throw argumentError(error);
  }
  const { values, positionals } = parsed;
  if (values.version) return { command: 'version' };
  const command = positionals[0];
  if (values.help || command === 'help') return { command: 'help' };
  // Flags without a command (or nothing at all) is a mistake, most often a forgotten `run`.
  if (command === undefined) return { command: 'help', missingCommand: true };
  if (positionals.length > 1)
    throw new ValidationError('arguments', `unexpected argument ${preview(positionals[1] as string)}`);
  const destination = parseDestination(values.out, values.s3, values['s3-endpoint'], values['s3-region']);

  if (command === 'render') {
    if (values.snapshot === undefined) throw new ValidationError('--snapshot', 'is required by render');
    refuseOutsideRender(values);
    return {
      command: 'render',
      snapshot: values.snapshot,
      destination,
      presentation: requestInput(values, { profile: false }),
      ...(values.rates ? { rates: parseRatesFlags(values.rates) } : {}),
      ...(values.adjustments !== undefined ? { adjustments: values.adjustments } : {}),
      ...(values['signing-key'] !== undefined ? { signingKey: values['signing-key'] } : {}),
      ...(values.manifest !== undefined ? { manifest: values.manifest } : {}),
    };
  }
  if (command !== 'run')
    throw new ValidationError(
      'command',
      `unknown command ${preview(command)}: pbs-export help lists the commands`,
    );
  if (values.snapshot !== undefined) throw new ValidationError('--snapshot', 'only applies to render');
  if (values.manifest !== undefined) throw new ValidationError('--manifest', 'only applies to render');

  const configured = values.config !== undefined || (env.PBS_BASE_URL ?? '') !== '';
  const simulatorOptions = {
    ...optionalInt('--transactions', values.transactions, 'transactions', MAX_SIMULATED_TRANSACTIONS),
    ...optionalInt('--seed', values.seed, 'seed', MAX_SEED),
  };
  const simulated = values.simulator || !configured;
  if (!simulated) {
    // Silently ignoring them would export the real portfolio while the user asked for demo data.
    for (const flag of ['--transactions', '--seed'] as const) {
      if (values[flag.slice(2) as 'transactions' | 'seed'] !== undefined) {
        throw new ValidationError(flag, 'only applies to the embedded simulator (add --simulator)');
      }
    }
  }
  const service: ServiceChoice = simulated
    ? { kind: 'simulator', ...simulatorOptions }
    : { kind: 'service', ...(values.config !== undefined ? { configFile: values.config } : {}) };
  // A real portfolio's files must not be named after the simulator's demo profile.
  if (!simulated && values.profile === undefined) {
    throw new ValidationError(
      '--profile',
      'is required against the real service (it names the files and folders)',
    );
  }
  return {
    command: 'run',
    request: requestInput(values),
    service,
    destination,
    ...optionalInt('--concurrency', values.concurrency, 'concurrency'),
    ...(values.rates ? { rates: parseRatesFlags(values.rates) } : {}),
    ...(values.adjustments !== undefined ? { adjustments: values.adjustments } : {}),
    ...(values['signing-key'] !== undefined ? { signingKey: values['signing-key'] } : {}),
  };
}

/** The `gains` fields given as text, by flag. */
export const GAINS_TEXT_FLAGS = {
  'tax-rules': 'taxRules',
  'gains-method': 'method',
  'gains-pooling': 'pooling',
  'tax-year-start': 'taxYearStart',
  'same-instant-order': 'sameInstantOrder',
  'protocol-moves': 'protocolMoves',
  'transfer-in-basis': 'transferInBasis',
  'transfer-fee': 'transferFee',
  'gains-currency': 'currency',
  'wallet-allocation': 'walletAllocation',
} as const;

/**
 * The flags `render` takes besides `--snapshot` and the destination: those that change only how
 * the snapshot's data is shown. Every other flag is refused with the reason of its group below.
 */
const RENDER_FLAGS = new Set<string>([
  'format',
  'delimiter',
  'decimal-separator',
  'report',
  'long-term-years',
  'transfer-tolerance-hours',
  'broker-reporting',
  // Only the zone the dates are shown in: the period stays the snapshot's (see `displayZone`).
  'time-zone',
  ...Object.keys(GAINS_TEXT_FLAGS),
]);

/** Why `render` refuses a flag: it would need a new fetch, or a service render does not call. */
const RENDER_REFUSALS: [readonly string[], string][] = [
  [
    ['profile', 'period', 'token', 'category', 'protocol', 'hash', 'window', 'changes-since'],
    'changes what is fetched, so it needs a new fetch: run an export with it',
  ],
  [
    ['conflicting-copies'],
    'was applied when the snapshot was assembled, so it needs a new fetch: run an export with it',
  ],
  [['simulator', 'transactions', 'seed', 'config', 'concurrency'], 'render calls no service'],
];

/**
 * `--broker-reporting`, repeatable: `B` for every account, `ACCOUNT=B` for one (the last `=`
 * splits, so an account id may hold one). Only plain values give the plain field; the values
 * themselves are checked by the request schema, which names the field.
 */
function brokerReporting(values: readonly string[]): unknown {
  const plain = values.filter((value) => !value.includes('='));
  if (plain.length > 1)
    throw new ValidationError(
      '--broker-reporting',
      'give the value for every account once (ACCOUNT=B for one account)',
    );
  if (plain.length === values.length) return plain[0];
  const accounts: Record<string, string> = {};
  for (const value of values) {
    const at = value.lastIndexOf('=');
    if (at < 0) continue;
    accounts[value.slice(0, at)] = value.slice(at + 1);
  }
  return { ...(plain[0] === undefined ? {} : { default: plain[0] }), accounts };
}

/** The fields `flags` name (flag → field) whose flag was given, with its text. */
function textFields(values: Record<string, unknown>, flags: Record<string, string>): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(flags)) {
    if (values[flag] !== undefined) fields[field] = values[flag];
  }
  return fields;
}

/** Refuses, by name and with the reason, each flag given to `render` that it cannot apply. */
function refuseOutsideRender(values: Record<string, unknown>): void {
  const ignored = new Set([
    'snapshot',
    'out',
    's3',
    's3-endpoint',
    's3-region',
    'help',
    'version',
    'rates',
    'adjustments',
    'manifest',
    'signing-key',
  ]);
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || ignored.has(name) || RENDER_FLAGS.has(name)) continue;
    const reason = RENDER_REFUSALS.find(([flags]) => flags.includes(name))?.[1] ?? 'does not apply to render';
    throw new ValidationError(`--${name}`, `render cannot apply it: ${reason}`);
  }
}

/**
 * A parser error in the user's words: an unknown flag with the closest known one, a flag missing
 * its value, a switch given one.
 */
function argumentError(error: unknown): ValidationError {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message;
  const flag = /'(-{1,2}[^'\s=]*)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag !== undefined) {
    const suggestion = closestFlag(flag, FLAG_NAMES);
    return new ValidationError(
      preview(flag).slice(1, -1),
      `unknown flag${suggestion ? ` (did you mean ${suggestion}?)` : ''}; pbs-export help lists the flags`,
      { cause: error },
    );
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag !== undefined) {
    const name = flag.split(' ')[0] as string;
    const takesValue = /argument missing/.test(message);
    return new ValidationError(name, takesValue ? 'needs a value' : 'takes no value', { cause: error });
  }
  return new ValidationError('arguments', message, { cause: error });
}

function requestInput(
  values: Record<string, unknown>,
  { profile = true }: { profile?: boolean } = {},
): Record<string, unknown> {
  const text = (name: string) => values[name] as string | undefined;
  const list = (name: string) => values[name] as string[] | undefined;
  const request: Record<string, unknown> = profile ? { profile: text('profile') ?? 'demo' } : {};
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
  const gains = textFields(values, GAINS_TEXT_FLAGS);
  const reporting = list('broker-reporting');
  if (reporting !== undefined) gains.brokerReporting = brokerReporting(reporting);
  const longTermYears = text('long-term-years');
  if (longTermYears !== undefined)
    gains.longTermYears = /^\d+$/.test(longTermYears) ? Number(longTermYears) : longTermYears;
  const tolerance = text('transfer-tolerance-hours');
  // A number goes to the schema as one (so its range check names the field); anything else as sent.
  if (tolerance !== undefined)
    gains.transferToleranceHours = /^\d+(\.\d+)?$/.test(tolerance) ? Number(tolerance) : tolerance;
  if (Object.keys(gains).length > 0) request.gains = gains;
  const csv: Record<string, unknown> = {};
  if (text('delimiter') !== undefined) csv.delimiter = text('delimiter') === 'tab' ? '\t' : text('delimiter');
  if (text('decimal-separator') !== undefined) csv.decimalSeparator = text('decimal-separator');
  if (Object.keys(csv).length > 0) request.csv = csv;
  if (text('conflicting-copies') !== undefined) request.conflictingCopies = text('conflicting-copies');
  const journal = journalInput(values);
  if (journal !== null) request.journal = journal;
  return request;
}

export function parseDestination(
  out: string | undefined,
  s3: string | undefined,
  endpoint: string | undefined,
  region: string | undefined,
): Destination {
  if (out !== undefined && s3 !== undefined)
    throw new ValidationError('--s3', 'give either --out or --s3, not both');
  if (s3 === undefined) {
    if (endpoint !== undefined) throw new ValidationError('--s3-endpoint', 'needs --s3');
    if (region !== undefined) throw new ValidationError('--s3-region', 'needs --s3');
    // An empty --out would resolve to the current directory.
    if (out !== undefined && out.trim() === '') throw new ValidationError('--out', 'must not be empty');
    return { kind: 'folder', dir: out ?? 'out' };
  }
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(s3);
  if (!match) throw new ValidationError('--s3', 'must look like s3://bucket/prefix');
  const bucket = match[1] as string;
  if (/\.\.|\.-|-\./.test(bucket) || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw new ValidationError('--s3', `bucket ${JSON.stringify(bucket)} is not a valid S3 bucket name`);
  }
  const prefix = (match[2] ?? '').replace(/\/+$/, '');
  if (
    prefix !== '' &&
    !prefix.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..')
  ) {
    throw new ValidationError('--s3', 'the prefix must not hold empty, "." or ".." segments');
  }
  if (endpoint !== undefined) checkEndpoint(endpoint);
  if (region !== undefined && !/^[a-z0-9]+(-[a-z0-9]+)*$/.test(region)) {
    throw new ValidationError('--s3-region', 'expected a region name such as "eu-central-1"');
  }
  if (region !== undefined && region.length > 63) {
    throw new ValidationError('--s3-region', 'must be at most 63 characters');
  }
  return {
    kind: 's3',
    bucket,
    prefix,
    ...(endpoint !== undefined ? { endpoint } : {}),
    ...(region !== undefined ? { region } : {}),
  };
}

/** An S3-compatible endpoint: an http(s) URL without credentials, query or fragment. */
function checkEndpoint(endpoint: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw new ValidationError('--s3-endpoint', 'must be an http:// or https:// URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('--s3-endpoint', 'must be an http:// or https:// URL');
  }
  if (url.username !== '' || url.password !== '') {
    throw new ValidationError(
      '--s3-endpoint',
      'must not hold credentials (use AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY)',
    );
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ValidationError('--s3-endpoint', 'must not hold a query or fragment');
  }
}

function splitList(values: readonly string[]): string[] {
  return values.flatMap((value) => value.split(',')).map((value) => value.trim());
}

function optionalInt<K extends string>(
  flag: string,
  value: string | undefined,
  key: K,
  max = Number.MAX_SAFE_INTEGER,
): Partial<Record<K, number>> {
  if (value === undefined) return {};
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new ValidationError(flag, `must be a positive integer, got ${preview(value)}`);
  }
  if (Number(value) > max) throw new ValidationError(flag, `must be at most ${max}, got ${value}`);
  return { [key]: Number(value) } as Partial<Record<K, number>>;
}

/** A value quoted for an error message: JSON-escaped (controls visible) and cut at 40 characters. */
function preview(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/**
 * The request's `journal` block from `--journal-format` (a list, checked against the registered
 * formats by the request schema), `--journal-rollup` and `--journal-chart FILE` (the chart of
 * accounts as JSON, validated field by field as `journal.chart.…`) and `--journal-settings FILE`
 * (the formats' settings, `journal.settings.<format>.…`); null when none is given.
 */
function journalInput(values: Record<string, unknown>): Record<string, unknown> | null {
  const journal: Record<string, unknown> = {};
  const formats = values['journal-format'] as string[] | undefined;
  if (formats !== undefined) journal.formats = splitList(formats);
  if (values['journal-rollup'] === true) journal.rollup = true;
  const chartFile = values['journal-chart'] as string | undefined;
  if (chartFile !== undefined) journal.chart = readJsonFile(chartFile, '--journal-chart');
  const settingsFile = values['journal-settings'] as string | undefined;
  if (settingsFile !== undefined) journal.settings = readJsonFile(settingsFile, '--journal-settings');
  return Object.keys(journal).length > 0 ? journal : null;
}

function readJsonFile(file: string, flag: string): unknown {
  let body: string;
  try {
    body = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ValidationError(flag, `cannot read ${preview(file)}`, { cause: error });
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (error) {
    throw new ValidationError(flag, `${preview(file)} is not JSON: ${(error as Error).message}`, {
      cause: error,
    });
  }
}
