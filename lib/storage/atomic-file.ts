/**
 * Records created whole or not at all in a local folder. A record written in place (`writeFile`
 * with `wx`) exists under its final name from its first byte: a process killed while writing it
 * leaves a short or empty file that every later reader trips on. Here the bytes go to a temporary
 * name in the same folder, are fsynced, and only then take the final name, so the final name holds
 * either nothing or every byte.
 *
 * `createFileExclusive` takes the final name with `link(2)`, which fails with `EEXIST` when the
 * name is taken: the same "created only if absent" as `O_EXCL`, and a racing writer loses, but
 * never after a partial write. `replaceFileAtomically` takes it with `rename(2)`, which replaces.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** The prefix of a temporary file this module writes; a reader listing a folder skips such names. */
export const ATOMIC_TEMP_PREFIX = '.';

/** Whether `name` (a file's base name) is a temporary file of this module's, not a record. */
export function isAtomicTempName(name: string): boolean {
  return name.startsWith(ATOMIC_TEMP_PREFIX) && name.includes('.partial-');
}

/**
 * Creates `file` with `bytes` unless it exists. Throws the `EEXIST` system error when it does
 * (callers match it as before with `wx`), and leaves no temporary file behind either way.
 */
export async function createFileExclusive(file: string, bytes: string | Uint8Array): Promise<void> {
  const temp = await writeTemp(file, bytes);
  try {
    await link(temp, file);
  } finally {
    await rm(temp, { force: true });
  }
  await syncFolder(dirname(file));
}

/** Writes `file` with `bytes`, replacing it whole if it exists (write, fsync, rename). */
export async function replaceFileAtomically(file: string, bytes: string | Uint8Array): Promise<void> {
  const temp = await writeTemp(file, bytes);
  try {
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncFolder(dirname(file));
}

/** `bytes` in a new fsynced file beside `file`, under a temporary name; returns that name. */
async function writeTemp(file: string, bytes: string | Uint8Array): Promise<string> {
  const folder = dirname(file);
  await mkdir(folder, { recursive: true });
  const temp = join(
    folder,
    `${ATOMIC_TEMP_PREFIX}${basename(file)}.partial-${randomBytes(6).toString('hex')}`,
  );
  const handle = await open(temp, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temp, { force: true });
    throw error;
  }
  await handle.close();
  return temp;
}

/** Makes a new name in `folder` durable; a platform that cannot open a folder is left as is. */
async function syncFolder(folder: string): Promise<void> {
  try {
    const handle = await open(folder, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort: the file's own bytes are already fsynced
  }
}
