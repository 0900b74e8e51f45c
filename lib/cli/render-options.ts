import { IANAZone } from 'luxon';
import { PbsExportError, ValidationError } from '../errors.ts';
import { type ExportRequest, parseExportRequest, type SnapshotHeader } from '../export/index.ts';
import { inCliWords } from './messages.ts';

/** Reports every snapshot holds the data of: they are made from the period's transactions. */
const ALWAYS_RENDERABLE = new Set(['transactions', 'movements', 'summary']);

/** Why a report the snapshot was not fetched for cannot be added by `render`. */
const NOT_IN_SNAPSHOT: Record<string, string> = {
  gains:
    "needs the portfolio's transactions from its first one, and this snapshot holds only its period's: run an export with --report gains",
  changes:
    "needs the service's timeline, which this snapshot does not hold: run an export with --report changes",
};

/**
 * The snapshot's request with the presentation flags of `render` applied (`--time-zone` apart: see
 * {@link displayZone}, it does not change the request): formats, CSV dialect,
 * the reports its data makes (transactions, movements, summary always; gains and changes only when
 * the snapshot was fetched for them) and the gains options. Throws `ValidationError` naming the
 * flag, for a report the snapshot cannot make or an invalid combination.
 */
export function applyPresentation(
  original: ExportRequest,
  presentation: Record<string, unknown>,
): ExportRequest {
  const reports = presentation.reports as string[] | undefined;
  for (const report of reports ?? []) {
    if (ALWAYS_RENDERABLE.has(report) || original.reports.includes(report as never)) continue;
    const reason = NOT_IN_SNAPSHOT[report];
    if (reason !== undefined)
      throw new ValidationError('--report', `${report}: render cannot add it: ${reason}`);
  }
  const csv = presentation.csv as Record<string, unknown> | undefined;
  const gains = presentation.gains as Record<string, unknown> | undefined;
  const merged: Record<string, unknown> = {
    ...original,
    ...(presentation.formats !== undefined ? { formats: presentation.formats } : {}),
    ...(reports !== undefined ? { reports } : {}),
    csv: { ...original.csv, ...csv },
  };
  if (gains !== undefined) {
    // Another rule set starts from its own defaults: the snapshot's request holds the old rule
    // set's filled-in choices (method, tax year), which the new one may refuse.
    const otherRules = gains.taxRules !== undefined && gains.taxRules !== original.gains?.taxRules;
    merged.gains = otherRules ? { ...gains } : { ...original.gains, ...gains };
  }
  // Gains options kept from the snapshot's request have no report to apply to once gains is left out.
  if (reports !== undefined && !reports.includes('gains') && gains === undefined) delete merged.gains;
  try {
    return parseExportRequest(merged);
  } catch (error) {
    throw inCliWords(error, { ...presentation, gains: gains ?? {} });
  }
}

/**
 * The zone `render --time-zone` shows the dates in, when given and not the snapshot's own: the
 * period, its months and the gains' tax years stay those of the run's zone, which its windows were
 * fetched for. Throws `ValidationError` naming `--time-zone` for a zone that is not IANA's.
 */
export function displayZone(
  original: ExportRequest,
  presentation: Record<string, unknown>,
): string | undefined {
  const zone = presentation.timeZone;
  if (zone === undefined) return undefined;
  if (typeof zone !== 'string' || !IANAZone.isValidZone(zone))
    throw new ValidationError(
      '--time-zone',
      `expected an IANA time zone such as "Europe/Berlin", got ${JSON.stringify(zone)}`,
    );
  return zone === original.timeZone ? undefined : zone;
}

/**
 * The header of the snapshot `render` was given; a file that cannot be read or is no snapshot is
 * a bad `--snapshot` (exit 2), said in one line without Node's `Error:` prefix.
 */
export function readSnapshotForRender(
  file: string,
  read: (file: string) => Promise<SnapshotHeader>,
): Promise<SnapshotHeader> {
  return readSnapshotFlag('--snapshot', file, read);
}

/**
 * The header of the snapshot a flag names (`render --snapshot`, `restate --closed`, …); a file
 * that cannot be read or is no snapshot is a bad `flag` (exit 2), said in one line.
 */
export async function readSnapshotFlag(
  flag: string,
  file: string,
  read: (file: string) => Promise<SnapshotHeader>,
): Promise<SnapshotHeader> {
  try {
    return await read(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reasons: Record<string, string> = {
      ENOENT: 'no such file',
      EISDIR: 'it is a folder, not a snapshot file',
      EACCES: 'permission denied',
      ENOTDIR: 'a part of the path is a file',
    };
    if (code !== undefined && reasons[code] !== undefined) {
      throw new ValidationError(flag, `cannot read ${file}: ${reasons[code]}`, { cause: error });
    }
    if (error instanceof PbsExportError) throw new ValidationError(flag, error.message, { cause: error });
    // gzip or JSON that does not parse: not a file this tool wrote.
    throw new ValidationError(flag, `${file} is not a pbs-export snapshot (${(error as Error).message})`, {
      cause: error,
    });
  }
}
