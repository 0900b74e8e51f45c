/**
 * `pbs-export adjustments`: a profile's adjustments in a local folder (one file per version, see
 * lib/adjustments/store.ts). Adds adjustments from a JSON file, or opening lots from a CSV, as a
 * new version on top of the latest; withdraws one (`--withdraw ID --by NAME --why TEXT`: a new
 * version without it, the withdrawal recorded in it); without any, says which version is the latest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  type Adjustment,
  type AdjustmentsDocument,
  createFileAdjustmentsStore,
  importLotsCsv,
  type LoadedAdjustments,
  versionName,
  withdrawAdjustment,
} from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';

/** The usage of the subcommand (also in the main usage). */
export const ADJUSTMENTS_USAGE = `  pbs-export adjustments --profile P [--dir DIR] [--add FILE | --lots-csv FILE --id ID --by NAME --why TEXT
                         | --withdraw ID --by NAME --why TEXT]
                                 The profile's adjustments in DIR (default: adjustments), one
                                 file per version: --add appends the adjustments of a JSON file
                                 (one or an array), --lots-csv one opening-lots adjustment from a
                                 lots CSV, --withdraw takes adjustment ID out (the new version
                                 records who withdrew it, when and why), each as a new version;
                                 alone, names the latest version
`;

const OPTIONS = {
  profile: { type: 'string' },
  dir: { type: 'string' },
  add: { type: 'string' },
  'lots-csv': { type: 'string' },
  id: { type: 'string' },
  by: { type: 'string' },
  why: { type: 'string' },
  withdraw: { type: 'string' },
} as const;

type Values = Partial<Record<keyof typeof OPTIONS, string>>;

/** Reads a file a flag names, as text; an unreadable one is a bad flag. */
async function readText(flag: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new ValidationError(flag, `cannot read ${file}: ${(error as Error).message}`, { cause: error });
  }
}

/** The adjustments to add, from `--add` or `--lots-csv`; empty when neither is given. */
/** Refuses two of --add, --lots-csv and --withdraw together: one change per version. */
function oneChange(values: Values): void {
  const given = (['add', 'lots-csv', 'withdraw'] as const).filter((flag) => values[flag] !== undefined);
  if (given.length > 1)
    throw new ValidationError(
      `--${given[1]}`,
      `give one of --add, --lots-csv and --withdraw, not --${given.join(' and --')}`,
    );
}

async function newAdjustments(values: Values, now: Date): Promise<unknown[]> {
  if (values.add !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readText('--add', values.add));
    } catch (error) {
      if (error instanceof ValidationError) throw error;
      throw new ValidationError('--add', `${values.add} is not JSON`, { cause: error });
    }
    return Array.isArray(parsed) ? parsed : [parsed];
  }
  if (values['lots-csv'] === undefined || values.withdraw !== undefined) return [];
  for (const flag of ['id', 'by', 'why'] as const) {
    if (values[flag] === undefined) throw new ValidationError(`--${flag}`, 'is required with --lots-csv');
  }
  const lots = importLotsCsv(await readText('--lots-csv', values['lots-csv']));
  const opening: Adjustment = {
    id: values.id as string,
    kind: 'opening-lots',
    by: values.by as string,
    at: now.toISOString(),
    why: values.why as string,
    lots,
  };
  return [opening];
}

/**
 * Runs `adjustments` with the arguments after it; writes what it did to `out`. Throws
 * `ValidationError` for a bad flag, the adjustments' typed errors for a bad or stale document.
 */
export async function adjustmentsCommand(
  argv: readonly string[],
  io: { stdout: { write(text: string): void }; stderr: { write(text: string): void }; now: () => Date },
): Promise<void> {
  let values: Values;
  try {
    ({ values } = parseArgs({ args: [...argv], options: OPTIONS, strict: true }));
  } catch (error) {
    throw new ValidationError('adjustments', (error as Error).message, { cause: error });
  }
  const profile = values.profile;
  if (profile === undefined) throw new ValidationError('--profile', 'is required by adjustments');
  const dir = values.dir ?? 'adjustments';
  const store = createFileAdjustmentsStore(dir);
  for (const file of await store.emptyVersionFiles(profile)) {
    io.stderr.write(
      `warning: ${file} is empty: a write cut off by a kill or a crash left it, and it holds no version: the versions skip it (the next is numbered after it); delete it\n`,
    );
  }
  oneChange(values);
  const latest = await store.latest(profile);
  const stored = (loaded: LoadedAdjustments) =>
    `${join(dir, profile, versionName(loaded.document.version))}: version ${loaded.document.version}, ${loaded.document.adjustments.length} adjustment(s), SHA-256 ${loaded.sha256}\n`;
  if (values.withdraw !== undefined) {
    const withdrawal = withdrawalFlags(values, io.now());
    const document = withdrawAdjustment(profile, latest?.document ?? null, values.withdraw, withdrawal);
    const next = await store.put(profile, document, latest?.document.version ?? 0);
    io.stdout.write(`withdrew ${values.withdraw}: ${stored(next)}`);
    return;
  }
  const added = await newAdjustments(values, io.now());
  if (added.length === 0) {
    io.stdout.write(
      latest === null
        ? `${profile} has no adjustments in ${dir}\n`
        : `${join(dir, profile, versionName(latest.document.version))}: version ${latest.document.version}, ${latest.document.adjustments.length} adjustment(s), SHA-256 ${latest.sha256}\n`,
    );
    return;
  }
  const base = latest?.document.version ?? 0;
  const document = {
    schema: 'pbs-export/adjustments@1',
    profile,
    version: base + 1,
    adjustments: [...(latest?.document.adjustments ?? []), ...added],
    // The withdrawals stay in every later version.
    ...(latest?.document.withdrawn === undefined ? {} : { withdrawn: latest.document.withdrawn }),
  } as AdjustmentsDocument;
  io.stdout.write(stored(await store.put(profile, document, base)));
}

/** Who withdraws, when (now) and why, from `--by` and `--why` (both required with --withdraw). */
function withdrawalFlags(values: Values, now: Date): { by: string; at: string; why: string } {
  for (const flag of ['by', 'why'] as const) {
    if ((values[flag] ?? '').trim() === '')
      throw new ValidationError(
        `--${flag}`,
        'is required with --withdraw (the withdrawal is recorded with who and why)',
      );
  }
  return { by: values.by as string, at: now.toISOString(), why: values.why as string };
}

/**
 * `adjustments` as a process: 0 when done, 2 for a bad flag (one line and a pointer to the help),
 * 1 for a document that is invalid, contradictory or stale, each said in one line.
 */
export async function adjustmentsMain(
  argv: readonly string[],
  io: { stdout: { write(text: string): void }; stderr: { write(text: string): void }; now: () => Date },
): Promise<number> {
  try {
    await adjustmentsCommand(argv, io);
    return 0;
  } catch (error) {
    const usage = error instanceof ValidationError;
    io.stderr.write(
      `error: ${(error as Error).message}\n${usage ? 'Run "pbs-export help" for the usage.\n' : ''}`,
    );
    return usage ? 2 : 1;
  }
}
