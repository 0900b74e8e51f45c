import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';
import { CliUsageError } from './errors.ts';
import type { PastEdit } from './past-edits.ts';
import { profilesWithCounts } from './profiles.ts';
import type { RunningSimulator, SimulatorOptions } from './types.ts';

/** Usage text of `bin/simulator.ts`. */
export const USAGE = `Usage: npm run simulator -- [--port N] [--transactions N] [--seed N] [--latency-ms N] [--rate-limit N] [--edits FILE]
       [--hide ID]... [--misreport LEDGER:TOKEN:DELTA]...

  --port N           port on 127.0.0.1 (default 8080; 0 = any free port)
  --transactions N   transactions of the "demo" profile (default 3000)
  --seed N           data and fault seed (default 1)
  --latency-ms N     delay added before every response (default 0)
  --rate-limit N     requests per second per API key (default 20; 0 = unlimited)
  --edits FILE       changes to past transactions, a JSON array of
                     {"kind": "modify"|"add"|"delete", "profile", "at", "id", "set"|"transaction"},
                     each in force (and in the timeline) from its instant "at"
  --hide ID          leave the demo profile's transaction ID out of every listing (its ledger's
                     reported balance still counts it): a reconciliation difference
  --misreport L:T:D  report the demo profile's ledger L's balance of token T off by decimal D`;

function integerFlag(
  values: Record<string, string | boolean | string[] | undefined>,
  flag: string,
  max: number,
): number | undefined {
  const text = values[flag];
  if (text === undefined || typeof text !== 'string') return undefined;
  if (!/^\d+$/.test(text) || Number(text) > max) {
    throw new CliUsageError(`--${flag}`, `--${flag} must be an integer between 0 and ${max}, got "${text}"`);
  }
  return Number(text);
}

/**
 * Parses the simulator's command line into `SimulatorOptions` (plus `help`). Throws
 * `CliUsageError` naming the flag on an unknown flag or a bad value.
 */
export function parseCliArgs(args: string[]): {
  help: boolean;
  options: SimulatorOptions;
  editsFile?: string;
} {
  let values: Record<string, string | boolean | string[] | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        transactions: { type: 'string' },
        seed: { type: 'string' },
        'latency-ms': { type: 'string' },
        'rate-limit': { type: 'string' },
        edits: { type: 'string' },
        hide: { type: 'string', multiple: true },
        misreport: { type: 'string', multiple: true },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const flag = /'(-[^']*)'/.exec(message)?.[1] ?? 'arguments';
    throw new CliUsageError(flag, message);
  }
  const port = integerFlag(values, 'port', 65_535) ?? 8080;
  const transactions = integerFlag(values, 'transactions', 50_000_000);
  const seed = integerFlag(values, 'seed', 0xffffffff);
  const latencyMs = integerFlag(values, 'latency-ms', 600_000);
  const rateLimit = integerFlag(values, 'rate-limit', 1_000_000);
  const options: SimulatorOptions = { port };
  if (transactions !== undefined) options.profiles = profilesWithCounts({ demo: transactions });
  if (seed !== undefined) options.seed = seed;
  if (latencyMs !== undefined) options.faults = { latencyMs };
  if (rateLimit !== undefined) options.rateLimitPerSecond = rateLimit;
  const balanceFaults = balanceFaultsOf(values.hide, values.misreport);
  if (balanceFaults !== null) options.balanceFaults = balanceFaults;
  const edits = values.edits;
  return { help: values.help === true, options, ...(typeof edits === 'string' ? { editsFile: edits } : {}) };
}

/** The `--hide` and `--misreport` flags as balance faults of the demo profile; null when neither is given. */
function balanceFaultsOf(
  hide: string | boolean | string[] | undefined,
  misreport: string | boolean | string[] | undefined,
): SimulatorOptions['balanceFaults'] | null {
  const list = (value: typeof hide) => (Array.isArray(value) ? value : []);
  if (list(hide).length === 0 && list(misreport).length === 0) return null;
  return {
    hide: list(hide).map((id) => ({ profile: 'demo', id })),
    misreport: list(misreport).map((text) => {
      const match = /^([^:]+):([^:]+):(-?\d+(\.\d+)?)$/.exec(text);
      if (match === null)
        throw new CliUsageError(
          '--misreport',
          `--misreport must be LEDGER:TOKEN:DELTA (a decimal), got "${text}"`,
        );
      return {
        profile: 'demo',
        ledgerId: match[1] as string,
        symbol: match[2] as string,
        delta: match[3] as string,
      };
    }),
  };
}

/** The startup banner: base URL and, per profile, its (demo, non-secret) credentials. */
export function banner(sim: RunningSimulator): string {
  const lines = [`Portfolio Balance Service simulator listening on ${sim.url}`, ''];
  for (const p of sim.profiles) {
    lines.push(
      `profile ${p.name} (${p.transactions} transactions)`,
      `  apiKey:      ${p.apiKey}`,
      `  apiSecret:   ${p.apiSecret}   (demo value, valid only against this simulator)`,
      `  profileGuid: ${p.profileGuid}`,
      '',
    );
  }
  lines.push('Stop with Ctrl+C.');
  return lines.join('\n');
}

/**
 * The `--edits` file: a JSON array of past edits (each checked by the simulator as it starts, see
 * {@link editsError}). Throws `CliUsageError` naming the flag and the file when it cannot be read,
 * is not JSON or not an array.
 */
export async function readEditsFile(file: string): Promise<PastEdit[]> {
  const refused = (reason: string, cause?: unknown) => {
    const error = new CliUsageError('--edits', `--edits ${file}: ${reason}`);
    if (cause !== undefined) error.cause = cause;
    return error;
  };
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw refused(code === 'ENOENT' ? 'no such file' : `cannot read it (${(error as Error).message})`, error);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw refused(`is not JSON (${(error as Error).message})`, error);
  }
  if (!Array.isArray(parsed)) throw refused('expected a JSON array of edits');
  return parsed as PastEdit[];
}

/**
 * An edit the simulator refused as it started (`edits[2].id: …`) as a mistake of `--edits FILE`,
 * or undefined for any other error.
 */
export function editsError(error: unknown, file: string | undefined): CliUsageError | undefined {
  if (file === undefined || !(error instanceof ValidationError) || !error.field.startsWith('edits'))
    return undefined;
  const refused = new CliUsageError('--edits', `--edits ${file}: ${error.message}`);
  refused.cause = error;
  return refused;
}

/** A `--hide`/`--misreport` the simulator refused as it started (`balanceFaults.hide[0]…`), else undefined. */
export function balanceFaultError(error: unknown): CliUsageError | undefined {
  if (!(error instanceof ValidationError) || !error.field.startsWith('balanceFaults')) return undefined;
  const flag = error.field.includes('.hide') ? '--hide' : '--misreport';
  const refused = new CliUsageError(flag, `${flag}: ${error.message}`);
  refused.cause = error;
  return refused;
}
