/**
 * `pbs-export rates`: the published rates files a `--rates` run converts with, downloaded into a
 * folder, or made-up ones for the demo data (`--demo`, files named `DEMO-made-up_…`).
 *
 * Where they are published (the defaults of `--ecb-url` and `--hmrc-url`, lib/fx-store/fetch.ts):
 * - ECB: the euro foreign exchange reference rates since 1999, one ZIP of `eurofxref-hist.csv`,
 *   https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip, described on
 *   https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html
 * - HMRC: the monthly exchange rates, one XML file a month on the UK Trade Tariff service,
 *   https://www.trade-tariff.service.gov.uk/api/v2/exchange_rates/files/monthly_xml_2024-05.xml,
 *   listed on https://www.trade-tariff.service.gov.uk/exchange_rates (files from 2021-01 on; HMRC's
 *   older files are on the National Archives' copy of hmrc.gov.uk).
 * Their layouts are lib/fx/README.md's. Each file is parsed before it is written: one in no
 * published layout (an error page, say) is refused, never written.
 */
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';
import {
  DEMO_RATES_PREFIX,
  demoEcbHistCsv,
  demoHmrcMonthXml,
  demoRatesName,
  RATE_SOURCES,
  type RateSource,
} from '../fx/index.ts';
import {
  downloadPublished,
  ECB_HIST_URL,
  ecbHistoryFile,
  HMRC_MONTHLY_URL,
  hmrcMonthlyFiles,
  type PublishedFile,
} from '../fx-store/index.ts';
import { replaceFileAtomically } from '../storage/index.ts';

/** The usage of the subcommand (also in the main usage). */
export const RATES_USAGE = `  pbs-export rates --source ecb|hmrc [--from YYYY-MM] [--to YYYY-MM] [--dir DIR]
                                 Download the published rates files into DIR (default: rates):
                                 ecb, the ECB's eurofxref-hist.zip (every day since 1999); hmrc,
                                 HMRC's monthly_xml_YYYY-MM.xml of each month --from..--to
                                 (default --to: this month); --ecb-url URL and --hmrc-url URL
                                 (with {month}) fetch them from elsewhere
  pbs-export rates --demo [--source ecb|hmrc] [--from YYYY-MM] [--to YYYY-MM] [--dir DIR]
                                 Write made-up rates files for the demo data instead, named
                                 DEMO-made-up_… (default months: 2022-01..2025-12): not fit for filing
`;

const OPTIONS = {
  source: { type: 'string', multiple: true },
  from: { type: 'string' },
  to: { type: 'string' },
  dir: { type: 'string' },
  demo: { type: 'boolean' },
  'ecb-url': { type: 'string' },
  'hmrc-url': { type: 'string' },
} as const;

/** The months the demo files cover by default: the demo data's history and the tax years after it. */
const DEMO_MONTHS = { from: '2022-01', to: '2025-12' };

/** The most months one command fetches or writes (twenty years). */
const MAX_MONTHS = 240;

/** The prefix of a made-up file's name. */

/** A parsed `rates` command line. */
export interface RatesCommand {
  sources: RateSource[];
  dir: string;
  demo: boolean;
  /** The HMRC months (`YYYY-MM`), in order; the ECB file's days span them for `--demo`. */
  months: string[];
  ecbUrl: string;
  hmrcUrl: string;
}

/** Parses the arguments after `rates`; throws `ValidationError` naming the flag. */
export function parseRatesCommandLine(argv: readonly string[], now: Date): RatesCommand {
  let values: ReturnType<typeof parseArgs<{ options: typeof OPTIONS }>>['values'];
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (error) {
    throw new ValidationError('rates', (error as Error).message, { cause: error });
  }
  const demo = values.demo === true;
  const sources = parseSources(values.source, demo);
  if (demo) {
    for (const flag of ['ecb-url', 'hmrc-url'] as const) {
      if (values[flag] !== undefined) throw new ValidationError(`--${flag}`, 'does not apply to --demo');
    }
  }
  const monthsAsked = values.from !== undefined || values.to !== undefined;
  if (!demo && monthsAsked && !sources.includes('hmrc'))
    throw new ValidationError(
      values.from !== undefined ? '--from' : '--to',
      "applies to hmrc: the ECB's history file holds every day since 1999",
    );
  if (!demo && sources.includes('hmrc') && values.from === undefined)
    throw new ValidationError(
      '--from',
      'is required with --source hmrc: the first month to download (YYYY-MM)',
    );
  const from = monthFlag('--from', values.from ?? (demo ? DEMO_MONTHS.from : now.toISOString().slice(0, 7)));
  const to = monthFlag('--to', values.to ?? (demo ? DEMO_MONTHS.to : now.toISOString().slice(0, 7)));
  const dir = values.dir ?? 'rates';
  if (dir.trim() === '') throw new ValidationError('--dir', 'must not be empty');
  return {
    sources,
    dir,
    demo,
    months: monthsBetween(from, to),
    ecbUrl: urlFlag('--ecb-url', values['ecb-url'] ?? ECB_HIST_URL),
    hmrcUrl: hmrcUrlFlag(values['hmrc-url'] ?? HMRC_MONTHLY_URL),
  };
}

/** `--source`, repeatable or comma-separated; required unless `--demo` (which writes both). */
function parseSources(values: readonly string[] | undefined, demo: boolean): RateSource[] {
  if (values === undefined) {
    if (demo) return [...RATE_SOURCES];
    throw new ValidationError(
      '--source',
      "is required: ecb (the ECB's daily rates per euro, for --tax-rules de) or hmrc (HMRC's monthly rates per pound, for --tax-rules uk)",
    );
  }
  const sources = values.flatMap((value) => value.split(',')).map((value) => value.trim());
  for (const source of sources) {
    if (!(RATE_SOURCES as readonly string[]).includes(source))
      throw new ValidationError('--source', `expected ecb or hmrc, got ${JSON.stringify(source)}`);
  }
  return [...new Set(sources as RateSource[])];
}

function monthFlag(flag: string, value: string): string {
  const match = /^(\d{4})-(\d{2})$/.exec(value);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12)
    throw new ValidationError(flag, `expected a month YYYY-MM, got ${JSON.stringify(value)}`);
  return value;
}

/** Every month from `from` to `to`, both included. */
function monthsBetween(from: string, to: string): string[] {
  if (to < from) throw new ValidationError('--to', `${to} is before --from ${from}`);
  const months: string[] = [];
  for (let [year, month] = from.split('-').map(Number) as [number, number]; ; month += 1) {
    if (month > 12) [year, month] = [year + 1, 1];
    const label = `${year}-${String(month).padStart(2, '0')}`;
    months.push(label);
    if (label === to) return months;
    if (months.length === MAX_MONTHS)
      throw new ValidationError('--to', `at most ${MAX_MONTHS} months at once, from --from ${from}`);
  }
}

function urlFlag(flag: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ValidationError(flag, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ValidationError(flag, `must be an http:// or https:// URL, got ${JSON.stringify(value)}`);
  return value;
}

function hmrcUrlFlag(value: string): string {
  // The file is named by the URL's last segment: each month's needs a name of its own.
  if (!(value.split(/[?#]/)[0] ?? '').split('/').pop()?.includes('{month}'))
    throw new ValidationError(
      '--hmrc-url',
      'must hold {month} in its file name, where the month goes, as in …/monthly_xml_{month}.xml',
    );
  urlFlag('--hmrc-url', value.replaceAll('{month}', '2024-01'));
  return value;
}

/** The CLI's streams and clock, as `rates` uses them. */
export interface RatesIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  now: () => Date;
  /** The HTTP client; default the global `fetch`. */
  fetch?: typeof fetch;
}

/**
 * Runs `rates` with the arguments after it: 0 when every file was written, 2 for a bad flag, 1
 * when a file could not be downloaded or is in no published layout (the others are written).
 */
export async function ratesMain(argv: readonly string[], io: RatesIo): Promise<number> {
  let command: RatesCommand;
  try {
    command = parseRatesCommandLine(argv, io.now());
  } catch (error) {
    io.stderr.write(`error: ${(error as Error).message}\nRun "pbs-export rates --help" for the usage.\n`);
    return 2;
  }
  try {
    await mkdir(command.dir, { recursive: true });
  } catch (error) {
    io.stderr.write(`error: --dir: cannot create ${command.dir}: ${(error as Error).message}\n`);
    return 2;
  }
  if (command.demo) {
    for (const line of await writeDemoFiles(command)) io.stdout.write(`${line}\n`);
    io.stdout.write(
      "DEMO: made-up rates for the simulator's demo data, not the ECB's or HMRC's: not fit for filing.\n",
    );
    printUse(io, command, DEMO_RATES_PREFIX);
    return 0;
  }
  const files = publishedFilesOf(command);
  const failures: string[] = [];
  for (const { file, month } of files) {
    const result = await download(file, month, command.dir, io.fetch);
    if ('failure' in result) failures.push(result.failure);
    else io.stdout.write(`${result.line}\n`);
  }
  for (const failure of failures) io.stderr.write(`error: ${failure}\n`);
  if (failures.length < files.length) printUse(io, command, '');
  return failures.length === 0 ? 0 : 1;
}

/** The files a download asks for: the ECB's history, HMRC's file of each month (with its month). */
function publishedFilesOf(command: RatesCommand): { file: PublishedFile; month?: string }[] {
  const hmrc = command.sources.includes('hmrc') ? hmrcMonthlyFiles(command.hmrcUrl, command.months) : [];
  return [
    ...(command.sources.includes('ecb') ? [{ file: ecbHistoryFile(command.ecbUrl) }] : []),
    ...hmrc.map((file, index) => ({ file, month: command.months[index] as string })),
  ];
}

/** The first month of HMRC's files on the Trade Tariff service. */
const TRADE_TARIFF_FIRST_MONTH = '2021-01';

/**
 * Downloads one file and writes it into `dir` when it parses and, for an HMRC `month`, holds
 * that month's rates.
 */
async function download(
  file: PublishedFile,
  month: string | undefined,
  dir: string,
  fetcher: typeof fetch | undefined,
): Promise<{ line: string } | { failure: string }> {
  const downloaded = await downloadPublished(file, fetcher ? { fetch: fetcher } : {});
  if (downloaded.outcome === 'not-published') {
    const early = month !== undefined && month < TRADE_TARIFF_FIRST_MONTH;
    return {
      failure: `${file.name}: not published at ${file.url} (HTTP 404)${early ? `: the Trade Tariff service has HMRC's files from ${TRADE_TARIFF_FIRST_MONTH} on` : ''}`,
    };
  }
  if (downloaded.outcome === 'failed') return { failure: `${file.name}: ${downloaded.reason}` };
  if (month !== undefined && downloaded.first.slice(0, 7) !== month)
    return {
      failure: `${file.name}: ${file.url} sent the rates of ${downloaded.first} to ${downloaded.last}, not of ${month}: not written`,
    };
  const path = join(dir, file.name);
  const state = await writeWhole(path, downloaded.bytes);
  return {
    line: `${path}: ${file.source.toUpperCase()} rates ${downloaded.first} to ${downloaded.last}, SHA-256 ${downloaded.sha256}${state}`,
  };
}

/** Writes the made-up files of `--demo` (ECB: every day of the months; HMRC: each month); one line each. */
async function writeDemoFiles(command: RatesCommand): Promise<string[]> {
  const lines: string[] = [];
  const firstMonth = command.months[0] as string;
  const lastMonth = command.months.at(-1) as string;
  const [year, month] = lastMonth.split('-').map(Number) as [number, number];
  const [first, last] = [`${firstMonth}-01`, new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10)];
  if (command.sources.includes('ecb')) {
    const path = join(command.dir, demoRatesName('eurofxref-hist.csv'));
    const state = await writeWhole(path, Buffer.from(demoEcbHistCsv(first, last)));
    lines.push(`${path}: made-up ECB rates ${first} to ${last}${state}`);
  }
  if (command.sources.includes('hmrc')) {
    for (const label of command.months) {
      const [y, m] = label.split('-').map(Number) as [number, number];
      await writeWhole(join(command.dir, hmrcDemoName(label)), Buffer.from(demoHmrcMonthXml(y, m)));
    }
    lines.push(
      `${join(command.dir, hmrcDemoName(firstMonth))} … ${hmrcDemoName(lastMonth)}: made-up HMRC rates of ${command.months.length} month(s)`,
    );
  }
  return lines;
}

const hmrcDemoName = (month: string) => demoRatesName(`monthly_xml_${month}.xml`);

/**
 * Writes `bytes` at `path` whole (`replaceFileAtomically`: a kill never leaves half a file a run
 * would refuse). Returns what became of an existing file.
 */
async function writeWhole(path: string, bytes: Uint8Array): Promise<string> {
  const before = await readFile(path).catch(() => undefined);
  if (before?.equals(bytes)) return ' (unchanged)';
  await replaceFileAtomically(path, bytes);
  return before === undefined ? '' : ' (replaced: the content changed)';
}

/** How a run takes the files: one `--rates` per file, the ECB's or HMRC's. */
function printUse(io: RatesIo, command: RatesCommand, prefix: string): void {
  const dir = command.dir;
  if (command.sources.includes('ecb'))
    io.stdout.write(
      `A German run (--tax-rules de) takes: --rates ecb:${join(dir, prefix ? `${prefix}eurofxref-hist.csv` : 'eurofxref-hist.zip')}\n`,
    );
  if (command.sources.includes('hmrc'))
    io.stdout.write(
      `A UK run (--tax-rules uk) takes one --rates a month: $(for f in ${join(dir, `${prefix}monthly_xml_`)}*.xml; do printf -- '--rates hmrc:%s ' "$f"; done)\n`,
    );
}
