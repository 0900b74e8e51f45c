import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSystemError } from './errors.ts';
import { isDeadOwner, OWNER_TAG_PATTERN, type OwnerTag, ownerTag, type ProcessOwner } from './owner.ts';

/** What a sweep removed, and what it could not remove (reported, never thrown). */
export interface SweepResult {
  removed: string[];
  failed: { path: string; error: unknown }[];
}

/** Prefix of the scratch folders of runs: `pbs-export-<host>-<pid>-XXXXXX`. */
export const SCRATCH_PREFIX = 'pbs-export';

const SCRATCH_NAME = new RegExp(`^${SCRATCH_PREFIX}-${OWNER_TAG_PATTERN}-[A-Za-z0-9]{6}$`);

/**
 * Creates a run's scratch folder under `parent` (created if missing), named after its owner,
 * after removing the scratch folders of runs that died there (killed, so their own cleanup never
 * ran: raw portfolio data would otherwise stay in the temp folder). Folders of live processes,
 * of other hosts and of this process are kept.
 */
export async function openScratch(
  parent: string,
  owner: ProcessOwner,
  onSweepError?: (path: string, error: unknown) => void,
): Promise<string> {
  await mkdir(parent, { recursive: true });
  const swept = await removeDeadFolders(parent, scratchOwner, owner);
  for (const failure of swept.failed) onSweepError?.(failure.path, failure.error);
  return mkdtemp(join(parent, `${SCRATCH_PREFIX}-${ownerTag(owner)}-`));
}

/** The owner a scratch folder's name records, or null for any other name. */
export function scratchOwner(name: string): OwnerTag | null {
  const match = SCRATCH_NAME.exec(name);
  return match === null ? null : { host: match[1] as string, pid: Number(match[2]) };
}

/**
 * Removes the folders directly under `dir` whose name `ownerOf` recognises and whose owner is
 * dead (see `isDeadOwner`). A folder another sweep removes meanwhile is no error.
 */
export async function removeDeadFolders(
  dir: string,
  ownerOf: (name: string) => OwnerTag | null,
  owner: ProcessOwner,
): Promise<SweepResult> {
  const result: SweepResult = { removed: [], failed: [] };
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return result;
    result.failed.push({ path: dir, error });
    return result;
  }
  for (const name of names) {
    const tag = ownerOf(name);
    if (tag === null || !isDeadOwner(tag, owner)) continue;
    const path = join(dir, name);
    try {
      await rm(path, { recursive: true, force: true });
      result.removed.push(path);
    } catch (error) {
      result.failed.push({ path, error });
    }
  }
  return result;
}
