import { randomBytes } from 'node:crypto';
import { createWriteStream, type Dirent, type WriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { messageOf, StorageAbortedError, StorageError } from './errors.ts';
import { HashingStream } from './hashing.ts';
import { assertListPrefix, assertObjectName, isPartialSegment } from './names.ts';
import type { Sink, SinkObject, StoredObject } from './sink.ts';

/**
 * A sink writing into a local folder. Each object is written to a hidden temporary file beside its
 * target (`.<file>.partial-<hex>`), fsynced, then renamed into place, so a finished name never
 * shows partial content. Names are relative paths; anything that could leave `rootDir` is refused.
 *
 * @param rootDir folder that receives the files; created on demand.
 */
export function createLocalSink(rootDir: string): Sink {
  const root = resolve(rootDir);
  return {
    root,
    create(name: string, contentType: string): SinkObject {
      assertObjectName(name);
      return openLocalObject(root, name, contentType);
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

function openLocalObject(root: string, name: string, contentType: string): SinkObject {
  const target = join(root, ...name.split('/'));
  const dir = dirname(target);
  const temp = join(dir, `.${basename(target)}.partial-${randomBytes(6).toString('hex')}`);
  const stream = new HashingStream();
  // Failures are reported by done(); without a listener, destroying the stream would crash a
  // writer that does not listen for 'error' itself.
  stream.on('error', () => {});

  const written = writeTemp(stream, dir, temp, target);
  written.catch((error: unknown) => stream.destroy(error instanceof Error ? error : undefined));

  let outcome: Promise<StoredObject> | undefined;
  let aborting: Promise<void> | undefined;

  const done = async (): Promise<StoredObject> => {
    if (aborting !== undefined) throw new StorageError(target, 'write was aborted');
    if (!stream.writableEnded && !stream.destroyed) stream.end();
    try {
      await written;
      if (aborting !== undefined) throw new StorageAbortedError(target);
      await rename(temp, target);
    } catch (error) {
      await rm(temp, { force: true });
      throw new StorageError(target, `could not write ${JSON.stringify(name)}: ${messageOf(error)}`, {
        cause: error,
      });
    }
    await syncDirectory(dir);
    return { name, location: target, key: name, bytes: stream.bytes, sha256: stream.sha256, contentType };
  };

  return {
    stream,
    done() {
      outcome ??= done();
      return outcome;
    },
    abort(reason?: unknown) {
      aborting ??= (async () => {
        stream.destroy(new StorageAbortedError(target, { cause: reason }));
        await written.catch(() => {});
        // A done() already past its last check may still rename; let it finish, then keep its file.
        await outcome?.catch(() => {});
        await rm(temp, { force: true });
      })();
      return aborting;
    },
  };
}

async function writeTemp(stream: HashingStream, dir: string, temp: string, target: string): Promise<void> {
  await mkdir(dir, { recursive: true });
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
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw new StorageError(dir, `could not list: ${messageOf(error)}`, { cause: error });
  }
  for (const entry of entries) {
    const name = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) await collectFiles(join(dir, entry.name), name, names);
    else if (entry.isFile() && !isPartialSegment(entry.name)) names.push(name);
  }
}
