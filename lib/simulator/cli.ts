import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { ValidationError } from '../errors.ts';
import { CliUsageError } from './errors.ts';
import type { PastEdit } from './past-edits.ts';
import { profilesWithCounts } from './profiles.ts';
import type { RunningSimulator, SimulatorOptions } from './types.ts';

/** Usage text of `bin/simulator.ts`. */
export const USAGE = `Usage: npm run simulator -- [--port N] [--transactions N] [--seed N] [--latency-ms N] [--rate-limit N] [--edits FILE]

  --port N           port on 127.0.0.1 (default 8080; 0 = any free port)
  --transactions N   transactions of the "demo" profile (default 3000)
  --seed N           data and fault seed (default 1)
  --latency-ms N     delay added before every response (default 0)
  --rate-limit N     requests per second per API key (default 20; 0 = unlimited)
  --edits FILE       changes to past transactions, a JSON array of
                     {"kind": "modify"|"add"|"delete", "profile", "at", "id", "set"|"transaction"},
                     each in force (and in the timeline) from its instant "at"`;

function integerFlag(
  values: Record<string, string | boolean | undefined>,
  flag: string,
  max: number,
): number | undefined {
  const text = values[flag];
  if (text === undefined || typeof text === 'boolean') return undefined;
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
  let values: Record<string, string | boolean | undefined>;
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
  const edits = values.edits;
  return { help: values.help === true, options, ...(typeof edits === 'string' ? { editsFile: edits } : {}) };
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
