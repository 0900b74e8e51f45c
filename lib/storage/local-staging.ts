/**
 * The staging folder of a local set, held by the run that made it. Another process can remove it
 * while the run writes (a sweep that misjudged its owner, a person cleaning up): the run must then
 * fail, never re-create the folder and publish a set without the files it had written. So the
 * folder carries an owner record with a random token made at its creation, checked before each
 * file is written and before the set is put in place, and every file is read back and compared
 * with what was written (size and SHA-256) before the manifest and before the rename.
 */
import { randomBytes } from 'node:crypto';
import type { Dirent } from 'node:fs';
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { createFileExclusive } from './atomic-file.ts';
import { isSystemError, messageOf, StorageError } from './errors.ts';
import { type Digest, digestFile } from './hashing.ts';
import { isPartialSegment } from './names.ts';
import { ownerTagOf, type ProcessOwner } from './owner.ts';

/** Name of the owner record inside a staging folder; no object of a set may have this name. */
export const OWNER_RECORD = '.staging-owner.json';

/** What the owner record holds: the token that identifies the run, and its owner for a reader. */
interface OwnerRecord {
  token: string;
  host: string;
  pid: number;
}

/** A staging folder this run created and holds. */
export interface StagingFolder {
  readonly dir: string;
  /**
   * Throws unless the folder is still the one this run created (its owner record holds this
   * run's token): removed, or removed and re-created, it is not.
   */
  assertHeld(): Promise<void>;
  /** Creates `dir` (inside the staging folder) and the folders between, never the staging folder itself. */
  makeFolder(dir: string): Promise<void>;
  /**
   * Checks that the folder is still held and holds exactly `stored` (relative name → what was
   * written), each file with the size and SHA-256 written; the owner record and the temporary
   * files of objects still being written are allowed beside them.
   *
   * @throws StorageError naming the folder and every difference found.
   */
  verify(stored: ReadonlyMap<string, Digest>): Promise<void>;
  /** Removes the owner record, just before the folder is renamed into place. */
  release(): Promise<void>;
}

/**
 * Creates the staging folder `dir` (its parent must exist) and its owner record.
 *
 * @throws StorageError when either cannot be created.
 */
export async function createStagingFolder(dir: string, owner: ProcessOwner): Promise<StagingFolder> {
  const token = randomBytes(16).toString('hex');
  const record = join(dir, OWNER_RECORD);
  try {
    // mkdir, not mkdtemp: the folder becomes the run's folder, with the usual permissions.
    await mkdir(dir);
    const { host, pid } = ownerTagOf(owner);
    const content: OwnerRecord = { token, host, pid };
    // Whole or absent: a run killed while writing it leaves no empty record behind.
    await createFileExclusive(record, `${JSON.stringify(content)}\n`);
  } catch (error) {
    throw new StorageError(dir, `could not create a staging folder: ${messageOf(error)}`, { cause: error });
  }
  const assertHeld = async (): Promise<void> => {
    const found = await readToken(record);
    if (found !== token) {
      throw new StorageError(
        dir,
        found === undefined
          ? 'the staging folder was removed while the run wrote it (by another process?); nothing is published'
          : 'the staging folder was replaced by another run; nothing is published',
      );
    }
  };
  return {
    dir,
    assertHeld,
    async makeFolder(target) {
      await assertHeld();
      const inside = relative(dir, target);
      let current = dir;
      for (const segment of inside === '' ? [] : inside.split(sep)) {
        current = join(current, segment);
        await mkdir(current).catch((error: unknown) => {
          if (!isSystemError(error, 'EEXIST')) throw error;
        });
      }
    },
    async verify(stored) {
      await assertHeld();
      const problems = await differences(dir, stored);
      // Read again after the files: a folder swapped while they were read is not this run's.
      await assertHeld();
      if (problems.length > 0) {
        throw new StorageError(
          dir,
          `the staged files are not the files written (${problems.join('; ')}); nothing is published`,
        );
      }
    },
    async release() {
      await assertHeld();
      await rm(record);
    },
  };
}

/** The token of the record at `path`, or undefined when there is none or it cannot be read. */
async function readToken(path: string): Promise<string | undefined> {
  try {
    const parsed = JSON.parse(await readFile(path, 'utf8')) as Partial<OwnerRecord>;
    return typeof parsed.token === 'string' ? parsed.token : undefined;
  } catch {
    return undefined;
  }
}

/** What differs between the folder's files and `stored`, in words; empty when nothing does. */
async function differences(dir: string, stored: ReadonlyMap<string, Digest>): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, written] of stored) {
    let found: Digest;
    try {
      found = await digestFile(join(dir, ...name.split('/')));
    } catch (error) {
      problems.push(
        `${JSON.stringify(name)} ${isSystemError(error, 'ENOENT') ? 'is missing' : messageOf(error)}`,
      );
      continue;
    }
    if (found.bytes !== written.bytes) {
      problems.push(`${JSON.stringify(name)} has ${found.bytes} bytes, ${written.bytes} were written`);
    } else if (found.sha256 !== written.sha256) {
      problems.push(`${JSON.stringify(name)} has another sha256 than the one written`);
    }
  }
  for (const name of await filesUnder(dir, '')) {
    if (name !== OWNER_RECORD && !stored.has(name))
      problems.push(`${JSON.stringify(name)} was not written by the run`);
  }
  return problems;
}

/** Relative names of the files under `dir`, temporaries of objects still being written left out. */
async function filesUnder(dir: string, prefix: string): Promise<string[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return [];
    throw error;
  }
  const names: string[] = [];
  for (const entry of entries) {
    const name = `${prefix}${entry.name}`;
    if (entry.isDirectory()) names.push(...(await filesUnder(join(dir, entry.name), `${name}/`)));
    else if (!isPartialSegment(entry.name)) names.push(name);
  }
  return names;
}
