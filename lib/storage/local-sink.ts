import { randomBytes } from 'node:crypto';
import { createWriteStream, type Dirent, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { ValidationError } from '../errors.ts';
import { isSystemError, messageOf, StorageAbortedError, StorageError } from './errors.ts';
import { type Digest, HashingStream } from './hashing.ts';
import { createStagingFolder, OWNER_RECORD, type StagingFolder } from './local-staging.ts';
import { assertListPrefix, assertObjectName, isPartialSegment, isStagingSegment } from './names.ts';
import {
  currentProcessOwner,
  OWNER_TAG_PATTERN,
  type OwnerTag,
  ownerTag,
  type ProcessOwner,
} from './owner.ts';
import { removeDeadFolders } from './scratch.ts';
import type { Once, Sink, SinkObject, SinkSet, StoredObject } from './sink.ts';
import { once, trackPending } from './sink.ts';

/** Options of {@link createLocalSink}. */
export interface LocalSinkOptions {
  /** Owner of the staging folders this sink makes, and judge of others' (default: this process). */
  owner?: ProcessOwner;
  /** Told when a dead run's staging folder cannot be removed (the set is still written). */
  onSweepError?: (path: string, error: unknown) => void;
}

/**
 * A sink writing into a local folder. Each object is written to a hidden temporary file beside its
 * target (`.<file>.partial-<hex>`), fsynced, then renamed into place, so a finished name never
 * shows partial content. A set (a run's folder) is built in a hidden staging folder beside its
 * final place (`.<folder>.staging-<host>-<pid>-<random>`, same parent so same filesystem) and
 * renamed into place in one step once complete; opening a set removes the staging folders that
 * dead processes of this host left beside it. The run holds its staging folder through an owner
 * record with a random token and checks, before each file, the manifest and the rename, that
 * the folder is still its own and holds exactly the files it wrote (see `local-staging.ts`).
 * Names are relative paths; anything that could leave `rootDir` is refused.
 *
 * @param rootDir folder that receives the files; created on demand.
 */
export function createLocalSink(rootDir: string, options: LocalSinkOptions = {}): Sink {
  const root = resolve(rootDir);
  const owner = options.owner ?? currentProcessOwner();
  return {
    root,
    create(name: string, contentType: string): SinkObject {
      assertObjectName(name);
      const target = join(root, ...name.split('/'));
      const makeFolder = (dir: string) => mkdir(dir, { recursive: true }).then(() => {});
      return openLocalObject(target, { name, key: name, location: target }, contentType, makeFolder);
    },
    async openSet(prefix: string): Promise<SinkSet> {
      assertObjectName(prefix);
      const finalDir = join(root, ...prefix.split('/'));
      const parent = dirname(finalDir);
      try {
        await mkdir(parent, { recursive: true });
      } catch (error) {
        throw new StorageError(parent, `could not create: ${messageOf(error)}`, { cause: error });
      }
      const swept = await removeDeadFolders(parent, stagingOwner, owner);
      for (const failure of swept.failed) options.onSweepError?.(failure.path, failure.error);
      if (await exists(finalDir)) {
        throw new StorageError(finalDir, 'already exists: a run is never written over another');
      }
      const staging = await createStagingFolder(
        join(parent, `.${basename(finalDir)}.staging-${ownerTag(owner)}-${randomBytes(3).toString('hex')}`),
        owner,
      );
      return openLocalSet(prefix, finalDir, staging);
    },
    async list(prefix: string): Promise<string[]> {
      assertListPrefix(prefix);
      const slash = prefix.lastIndexOf('/');
      const base = slash < 0 ? '' : prefix.slice(0, slash);
      const names: string[] = [];
      await collectFiles(base === '' ? root : join(root, ...base.split('/')), base, names);
      return names.filter((name) => name.startsWith(prefix)).sort();
    },
    async remove(name: string): Promise<void> {
      assertObjectName(name);
      const target = join(root, ...name.split('/'));
      try {
        await rm(target, { force: true });
      } catch (error) {
        throw new StorageError(target, `could not remove: ${messageOf(error)}`, { cause: error });
      }
      await syncDirectory(dirname(target));
    },
  };
}

const STAGING_NAME = new RegExp(`^\\..+\\.staging-${OWNER_TAG_PATTERN}-[A-Za-z0-9]{6}$`);

/** The owner a staging folder's name records, or null for any other name. */
export function stagingOwner(name: string): OwnerTag | null {
  const match = STAGING_NAME.exec(name);
  return match === null ? null : { host: match[1] as string, pid: Number(match[2]) };
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) return false;
    throw new StorageError(path, `could not inspect: ${messageOf(error)}`, { cause: error });
  }
}

function openLocalSet(prefix: string, finalDir: string, staging: StagingFolder): SinkSet {
  let state: 'open' | 'committed' | 'discarded' = 'open';
  const pending = new Set<Promise<unknown>>();
  /** What each stored file was written as, by its name in the set. */
  const stored = new Map<string, Digest>();
  return {
    prefix,
    create(name: string, contentType: string): SinkObject {
      assertObjectName(name);
      if (name === OWNER_RECORD) {
        throw new ValidationError(
          'name',
          `${JSON.stringify(name)} is the name of a staging folder's owner record`,
        );
      }
      if (state !== 'open') throw new StorageError(finalDir, `the set is already ${state}`);
      const segments = name.split('/');
      const object = openLocalObject(
        join(staging.dir, ...segments),
        { name, key: `${prefix}/${name}`, location: join(finalDir, ...segments) },
        contentType,
        // Never mkdir -p: a staging folder removed meanwhile must fail the run, not come back empty.
        (dir) => staging.makeFolder(dir),
      );
      return trackPending(object, pending, (result) => {
        stored.set(name, { bytes: result.bytes, sha256: result.sha256 });
      });
    },
    async verify() {
      if (state !== 'open') throw new StorageError(finalDir, `the set is already ${state}`);
      if (pending.size > 0) throw new StorageError(finalDir, `${pending.size} file(s) still being written`);
      await staging.verify(stored);
    },
    async commit(options = {}) {
      options.signal?.throwIfAborted();
      if (state !== 'open') throw new StorageError(finalDir, `the set is already ${state}`);
      if (pending.size > 0) throw new StorageError(finalDir, `${pending.size} file(s) still being written`);
      await staging.verify(stored);
      await staging.release();
      try {
        // One step: the folder appears at its final name complete, or not at all.
        await rename(staging.dir, finalDir);
      } catch (error) {
        throw new StorageError(finalDir, `could not put the run in place: ${messageOf(error)}`, {
          cause: error,
        });
      }
      state = 'committed';
      await syncDirectory(dirname(finalDir));
    },
    async discard() {
      if (state === 'committed') return;
      state = 'discarded';
      await Promise.allSettled(pending);
      try {
        await rm(staging.dir, { recursive: true, force: true });
      } catch (error) {
        throw new StorageError(staging.dir, `could not remove: ${messageOf(error)}`, { cause: error });
      }
    },
  };
}

/** What `done()` reports of an object: its name, key and final location. */
type Described = Pick<StoredObject, 'name' | 'key' | 'location'>;

/**
 * One file written to a temporary beside `target`, renamed to it by `done()`. `makeFolder`
 * creates the file's folder before anything is written.
 */
function openLocalObject(
  target: string,
  described: Described,
  contentType: string,
  makeFolder: (dir: string) => Promise<void>,
): SinkObject {
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.partial-${randomBytes(6).toString('hex')}`);
  const stream = new HashingStream();
  // Failures are reported by done(); without a listener, destroying the stream would crash a
  // writer that does not listen for 'error' itself.
  stream.on('error', () => {});

  const written = writeTemp(stream, temp, target, () => makeFolder(dir));
  written.catch((error: unknown) => stream.destroy(error instanceof Error ? error : undefined));

  const done: Once<[], StoredObject> = once(async () => {
    if (abort.started() !== undefined) throw new StorageError(target, 'write was aborted');
    if (!stream.writableEnded && !stream.destroyed) stream.end();
    try {
      await written;
      if (abort.started() !== undefined) throw new StorageAbortedError(target);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw new StorageError(
        target,
        `could not write ${JSON.stringify(described.name)}: ${messageOf(error)}`,
        { cause: error },
      );
    }
    await syncDirectory(dir);
    return { ...described, bytes: stream.bytes, sha256: stream.sha256, contentType };
  });
  const abort = once(async (reason?: unknown) => {
    stream.destroy(new StorageAbortedError(target, { cause: reason }));
    await written.catch(() => {});
    // A done() already past its last check may still rename; let it finish, then keep its file.
    await done.started()?.catch(() => {});
    await rm(temp, { force: true });
  });

  return { stream, done: () => done(), abort };
}

async function writeTemp(
  stream: HashingStream,
  temp: string,
  target: string,
  makeFolder: () => Promise<void>,
): Promise<void> {
  await makeFolder();
  if (stream.destroyed) throw stream.errored ?? new StorageAbortedError(target);
  const file: WriteStream = createWriteStream(temp, { flags: 'wx', flush: true });
  try {
    await pipeline(stream, file);
  } finally {
    // The temp file must be closed before anyone removes or renames it.
    if (!file.closed) await new Promise<void>((resolveClose) => file.once('close', () => resolveClose()));
  }
}

/** Makes the rename itself durable; some platforms cannot open a directory, which is harmless. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // best effort: the file content itself is already fsynced
  }
}

async function collectFiles(dir: string, relative: string, names: string[]): Promise<void> {
  let entries: Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isSystemError(error, 'ENOENT', 'ENOTDIR')) return;
    throw new StorageError(dir, `could not list: ${messageOf(error)}`, { cause: error });
  }
  for (const entry of entries) {
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
    // A staging folder holds a set that is not in place yet: it is not listed.
    if (entry.isDirectory() && isStagingSegment(entry.name)) continue;
    if (entry.isDirectory()) await collectFiles(join(dir, entry.name), name, names);
    else if (entry.isFile() && !isPartialSegment(entry.name)) names.push(name);
  }
}
