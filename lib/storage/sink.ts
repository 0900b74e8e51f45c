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

/** Where a run's files go: a local folder or an S3 prefix. */
export interface Sink {
  /** Human-readable root, e.g. `/home/me/out` or `s3://bucket/prefix`. */
  readonly root: string;
  /** Opens `name` (a relative path such as `reports/demo/2025/run/transactions.csv`) for writing. */
  create(name: string, contentType: string): SinkObject;
  /** Lists the names already stored under a relative prefix (used to find finished runs). */
  list(prefix: string): Promise<string[]>;
  /**
   * Deletes a stored object (a run that failed part-way removes what it had published); no error
   * when it does not exist. Optional: a sink without it keeps what was stored.
   */
  remove?(name: string): Promise<void>;
}
