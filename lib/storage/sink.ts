import type { Writable } from 'node:stream';

/** What a sink reports about one stored object. */
export interface StoredObject {
  /** File name relative to the run, e.g. `transactions.csv`. */
  name: string;
  /** Full location: a file path or `s3://bucket/key`. */
  location: string;
  /** Object key (S3) or path relative to the sink root (folder). */
  key: string;
  bytes: number;
  /** Lowercase hex SHA-256 of the stored bytes. */
  sha256: string;
  contentType: string;
}

/**
 * One object being written. Bytes go to `stream`; nothing is visible under the final name until
 * `done()` resolves, and `abort()` leaves nothing behind (no partial file, no uploaded object).
 */
export interface SinkObject {
  readonly stream: Writable;
  /** Ends the stream if still open, waits until the object is durably stored, and describes it. */
  done(): Promise<StoredObject>;
  /** Discards everything written so far; safe to call more than once and after a failure. */
  abort(reason?: unknown): Promise<void>;
}

/**
 * Objects published together under one prefix (a run's files): built where no reader looks and put
 * at their final names only by `commit()`, so a process killed at any instant leaves nothing at a
 * final name unless the whole set was complete.
 */
export interface SinkSet {
  /** The set's prefix relative to the sink, e.g. `reports/demo/2025/20261122T041500Z-3f9a1c`. */
  readonly prefix: string;
  /**
   * Opens `name` (relative to the set, e.g. `manifest.json`) for writing into the staging area.
   * `done()` describes the object as it will be once committed: `name` as given, `key` and
   * `location` at the final name.
   */
  create(name: string, contentType: string): SinkObject;
  /**
   * Checks that every object stored so far is still staged as it was written (the folder sink
   * reads each file back and compares its size and SHA-256, after checking that its staging
   * folder is still its own; the S3 sink checked each object against what the store reports when
   * it was stored). Called before the manifest is written; `commit()` checks again before it puts
   * anything in place. Every object must be stored or aborted before.
   *
   * @throws StorageError naming what differs; the set should then be discarded.
   */
  verify(): Promise<void>;
  /**
   * Puts every stored object at its final name, the one stored last (the manifest) last: one
   * rename of the staging folder (folder), or server-side copies then removal of the staged
   * objects (S3). `signal` stops a commit still copying (it then rejects; call `discard()`).
   * Every object must be stored (`done()` resolved) or aborted before.
   */
  commit(options?: { signal?: AbortSignal }): Promise<void>;
  /**
   * Removes what the set staged and whatever an unfinished commit had already put at a final
   * name (the one stored last first). Best effort: tries everything, then rejects with the first
   * failure. Does nothing after a commit that resolved.
   */
  discard(): Promise<void>;
}

/** Where a run's files go: a local folder or an S3 prefix. */
export interface Sink {
  /** Human-readable root, e.g. `/home/me/out` or `s3://bucket/prefix`. */
  readonly root: string;
  /**
   * Opens `name` (a relative path such as `reports/demo/2025/run/transactions.csv`) for writing
   * on its own: it appears under its final name when `done()` resolves.
   */
  create(name: string, contentType: string): SinkObject;
  /** Starts a set of objects under `prefix` that appear together (see {@link SinkSet}). */
  openSet(prefix: string): Promise<SinkSet>;
  /** Lists the names already stored under a relative prefix (used to find finished runs). */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes an object stored on its own (`create`); no error when it does not exist. Optional: a
   * sink without it keeps what was stored. Sets clean up through `SinkSet.discard`.
   */
  remove?(name: string): Promise<void>;
}

/**
 * `object`, with its outcome (stored or aborted) tracked in `pending` until it settles, so a set's
 * commit or discard can wait for the objects still being written. `onStored` sees each stored
 * object before `done()` resolves.
 */
export function trackPending(
  object: SinkObject,
  pending: Set<Promise<unknown>>,
  onStored?: (stored: StoredObject) => void,
): SinkObject {
  let settle!: () => void;
  const settled = new Promise<void>((resolve) => {
    settle = resolve;
  });
  pending.add(settled);
  const finish = () => {
    pending.delete(settled);
    settle();
  };
  return {
    stream: object.stream,
    async done() {
      try {
        const stored = await object.done();
        onStored?.(stored);
        return stored;
      } finally {
        finish();
      }
    },
    async abort(reason?: unknown) {
      try {
        await object.abort(reason);
      } finally {
        finish();
      }
    },
  };
}

/** A function whose every call after the first returns the first call's promise; see {@link once}. */
export interface Once<A extends unknown[], T> {
  (...args: A): Promise<T>;
  /** The first call's promise, or undefined before it. */
  started(): Promise<T> | undefined;
}

/**
 * Runs `run` on the first call only: an object's `done()` and `abort()` each happen once, however
 * often they are called, and each can see whether the other has begun (`started()`).
 */
export function once<A extends unknown[], T>(run: (...args: A) => Promise<T>): Once<A, T> {
  let first: Promise<T> | undefined;
  const call = (...args: A): Promise<T> => {
    first ??= run(...args);
    return first;
  };
  return Object.assign(call, { started: () => first });
}
