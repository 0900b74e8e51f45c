/**
 * The guard every project path that writes or deletes a set goes through: a closed set is never
 * replaced or deleted. The export's publish (CLI `run` and `render`), the workflow's finish and
 * `serve`'s cleanup check the close records first and refuse with {@link SetClosedError}.
 */
import type { Sink } from '../storage/index.ts';
import { SetClosedError } from './errors.ts';
import { type CloseRecord, closeCovering, closesInForce } from './records.ts';
import type { CloseStore } from './store.ts';

/** Throws {@link SetClosedError} when `key` (a set's folder or one of its files) is in a closed set. */
export async function assertNotClosed(
  store: Pick<CloseStore, 'records' | 'location'>,
  key: string,
): Promise<void> {
  const close = closeCovering(closesInForce(await store.records()), key);
  if (close !== undefined) throw new SetClosedError(store.location(key), close);
}

/** The closes in force of `store`. */
export async function openCloses(store: Pick<CloseStore, 'records'>): Promise<CloseRecord[]> {
  return closesInForce(await store.records());
}

/** Options of {@link guardSink}. */
export interface GuardOptions {
  /**
   * Called when the close records cannot be read (credentials that may write but not list, as an
   * operator's first run may have); the set is then written as if nothing were closed. Absent: the
   * read error fails the write. The CLI warns and goes on: each run writes a new set, so only a
   * rerun of `render` into a closed set could be missed, and on AWS S3 Object Lock still holds.
   */
  onUnreadable?: (error: unknown) => void;
}

async function readRecords(
  store: Pick<CloseStore, 'records'>,
  options: GuardOptions,
): Promise<readonly CloseRecord[]> {
  if (options.onUnreadable === undefined) return store.records();
  try {
    return await store.records();
  } catch (error) {
    options.onUnreadable(error);
    return [];
  }
}

/**
 * `sink`, refusing to open a set, write a file or remove one inside a closed set. The records are
 * read again at every `openSet` and `remove`; `create` (synchronous) uses those read last.
 */
export function guardSink(
  sink: Sink,
  store: Pick<CloseStore, 'records' | 'location'>,
  options: GuardOptions = {},
): Sink {
  let known: CloseRecord[] = [];
  const check = async (key: string) => {
    known = closesInForce(await readRecords(store, options));
    refuse(key);
  };
  const refuse = (key: string) => {
    const close = closeCovering(known, key);
    if (close !== undefined) throw new SetClosedError(store.location(key), close);
  };
  return {
    root: sink.root,
    create(name, contentType) {
      refuse(name);
      return sink.create(name, contentType);
    },
    async openSet(prefix) {
      await check(prefix);
      return sink.openSet(prefix);
    },
    list: (prefix) => sink.list(prefix),
    ...(sink.remove
      ? {
          remove: async (name: string) => {
            await check(name);
            await sink.remove?.(name);
          },
        }
      : {}),
  };
}
