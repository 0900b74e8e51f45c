import { PassThrough, Writable } from 'node:stream';
import type { Column, Row, TableSource } from '../../lib/domain/index.ts';

/** Test helper: a re-readable table over fixed rows. */
export function table(columns: Column[], rows: readonly Row[], title = 'Transactions'): TableSource {
  return {
    spec: { name: 'transactions', title, columns },
    async *rows() {
      yield* rows;
    },
  };
}

/** Test helper: a stream that is consumed from the start, and the bytes it received once ended. */
export function sink(): { out: PassThrough; bytes: Promise<Buffer> } {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const bytes = new Promise<Buffer>((resolve, reject) => {
    out.on('end', () => resolve(Buffer.concat(chunks)));
    out.on('error', reject);
  });
  // Tests of failing writes never read `bytes`; keep its rejection from counting as unhandled.
  bytes.catch(() => {});
  return { out, bytes };
}

/**
 * Test helper: a Writable with a small buffer that acknowledges each chunk only on a later
 * macrotask, like a network upload that cannot keep up. `onChunk` sees each chunk as it lands.
 */
export class SlowWritable extends Writable {
  readonly chunks: Buffer[] = [];
  received = 0;

  constructor(
    highWaterMark: number,
    private readonly onChunk: (chunk: Buffer) => void = () => {},
  ) {
    super({ highWaterMark });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    setImmediate(() => {
      this.chunks.push(chunk);
      this.received += chunk.length;
      this.onChunk(chunk);
      callback();
    });
  }

  /** All bytes received so far. */
  bytes(): Buffer {
    return Buffer.concat(this.chunks);
  }
}

/** Test helper: a minimal RFC 4180 parser (quoted fields, doubled quotes, CRLF or LF records). */
export function parseCsv(text: string, delimiter = ','): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (ch === '"') {
        quoted = false;
      } else {
        field += ch;
      }
    } else if (ch === '"') {
      quoted = true;
    } else if (text.startsWith(delimiter, i)) {
      record.push(field);
      field = '';
      i += delimiter.length - 1;
    } else if (ch === '\n' || (ch === '\r' && text[i + 1] === '\n')) {
      if (ch === '\r') i += 1;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else {
      field += ch;
    }
  }
  if (field !== '' || record.length > 0) records.push([...record, field]);
  return records;
}
