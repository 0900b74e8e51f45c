/**
 * The part of archiver 5.3.2 that `archive.ts` uses (the XLSX writer has its own, `writers/xlsx-zip.ts`). `@types/archiver` is not installed (the
 * shared install is not changed for it), so this declares only what the project calls.
 */
declare module 'archiver' {
  import type { Readable, Transform } from 'node:stream';

  interface EntryData {
    name: string;
    /** The entry's modification time (default: now). */
    date?: Date;
    /** Stored as it is (no deflate): for files compressed already. */
    store?: boolean;
  }

  export interface Archiver extends Transform {
    append(source: Readable | Buffer | string, data: EntryData): this;
    finalize(): Promise<void>;
    abort(): this;
    pointer(): number;
    on(event: 'entry', listener: (entry: EntryData) => void): this;
    on(event: 'error' | 'warning', listener: (error: Error) => void): this;
    on(event: string, listener: (...args: unknown[]) => void): this;
  }

  function archiver(format: 'zip', options?: { zlib?: { level?: number }; highWaterMark?: number }): Archiver;
  export default archiver;
}
