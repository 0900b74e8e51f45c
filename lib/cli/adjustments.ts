/**
 * `--adjustments FILE` of `run` and `render`: the file read and validated, and for `render` checked
 * against the adjustments the snapshot's run recorded in its manifest (the same SHA-256), so the
 * figures rendered offline are the run's.
 */
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { AdjustmentsDigestError, type LoadedAdjustments, parseStoredVersion } from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';
import type { ExportRequest } from '../export/index.ts';

const REASONS: Record<string, string> = {
  ENOENT: 'no such file',
  EISDIR: 'it is a folder, not a file',
  EACCES: 'permission denied',
};

/** Reads a file a flag names; an unreadable one is a bad flag (exit 2). */
async function readFlagFile(flag: string, file: string): Promise<Uint8Array> {
  try {
    return await readFile(file);
  } catch (error) {
    const reason = REASONS[(error as NodeJS.ErrnoException).code ?? ''] ?? (error as Error).message;
    throw new ValidationError(flag, `cannot read ${file}: ${reason}`, { cause: error });
  }
}

/**
 * The adjustments file of `--adjustments`, validated (an invalid or contradictory one throws
 * `AdjustmentsFileError` naming the file and why: exit 1). Refused for a request without the
 * gains reports, and as a bad flag when it holds another profile's adjustments (before anything
 * is fetched, which the run would otherwise do before the gains engine refused them).
 */
export async function readAdjustmentsFlag(file: string, request: ExportRequest): Promise<LoadedAdjustments> {
  if (request.gains === undefined)
    throw new ValidationError('--adjustments', 'adjusts the gains figures: add --report gains');
  const loaded = parseStoredVersion(
    file,
    await readFlagFile('--adjustments', file),
    'correct the file (its schema: README, "Resolving warnings")',
  );
  if (loaded.document.profile !== request.profile)
    throw new ValidationError(
      '--adjustments',
      `${file} holds profile ${loaded.document.profile}'s adjustments, and the run is of profile ${request.profile}`,
    );
  return loaded;
}

/** What a manifest records of the adjustments (see `ReportSetDescription.adjustments`). */
interface Recorded {
  profile: string;
  version: number;
  sha256: string;
}

/**
 * The adjustments recorded by the manifest of the snapshot's run: `--manifest`, else
 * `manifest.json` beside the snapshot when there is one; `null` when none is recorded (or no
 * manifest is found beside the snapshot).
 */
export async function recordedAdjustments(
  snapshot: string,
  manifest: string | undefined,
): Promise<Recorded | null> {
  let text: string;
  try {
    text = Buffer.from(
      await readFlagFile('--manifest', manifest ?? join(dirname(snapshot), 'manifest.json')),
    ).toString('utf8');
  } catch (error) {
    if (manifest === undefined) return null;
    throw error;
  }
  try {
    const recorded = (JSON.parse(text) as { adjustments?: Recorded }).adjustments;
    return recorded ?? null;
  } catch (error) {
    throw new ValidationError('--manifest', `${manifest ?? 'manifest.json'} is not JSON`, { cause: error });
  }
}

/**
 * The adjustments `render` uses: the file given, which must be the one the run recorded (same
 * SHA-256), and is required when the run recorded one.
 */
export async function renderAdjustments(
  command: { snapshot: string; adjustments?: string; manifest?: string },
  request: ExportRequest,
): Promise<LoadedAdjustments | undefined> {
  const recorded = await recordedAdjustments(command.snapshot, command.manifest);
  if (command.adjustments === undefined) {
    if (recorded === null) return undefined;
    throw new ValidationError(
      '--adjustments',
      `the snapshot's run used the adjustments of profile ${recorded.profile}, version ${recorded.version} (SHA-256 ${recorded.sha256}): give that file (adjustments-v${recorded.version}.json)`,
    );
  }
  const loaded = await readAdjustmentsFlag(command.adjustments, request);
  if (recorded !== null && loaded.sha256 !== recorded.sha256)
    throw new AdjustmentsDigestError(command.adjustments, recorded.sha256, loaded.sha256);
  return loaded;
}
