import { readdir } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { Manifest } from '../export/index.ts';

/** A run folder's name: its run id, which starts with the run's start in UTC (`20261126T173648Z-906ecb`). */
const RUN_FOLDER = /^\d{8}T\d{6}Z-[0-9a-z]+$/;

/**
 * How many runs of the same profile and period sit beside a run published to a local folder and
 * started before it (their names sort before its own), or `undefined` for S3 or an unreadable
 * folder. Hidden staging folders and anything not named as a run are not counted.
 */
export async function earlierRunsBeside(manifest: Manifest): Promise<number | undefined> {
  const file = manifest.files[0];
  if (file === undefined || file.location.startsWith('s3://')) return undefined;
  const folder = dirname(file.location);
  if (basename(folder) !== manifest.runId) return undefined;
  try {
    const names = await readdir(dirname(folder));
    return names.filter((name) => RUN_FOLDER.test(name) && name < manifest.runId).length;
  } catch {
    return undefined;
  }
}
