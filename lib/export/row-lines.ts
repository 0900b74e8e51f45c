/**
 * A table's rows as lines of JSON (one array of cells a line): how a window's rows travel from the
 * fetch-shard task that rendered them to the finish that writes them into the workbook
 * (`window-piece.ts`, `join-pieces.ts`). Cells are text or null (`Row`), so a line holds them
 * exactly, and `JSON.parse` of a line gives the row back as rendered.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import type { Row, TableSource } from '../domain/index.ts';

/** Bytes gathered before a write: few, large writes. */
const WRITE_CHUNK = 64 * 1024;

/** Writes the rows of `table` into `out` as JSON lines, ends it, and returns how many rows it wrote. */
export async function writeRowLines(table: TableSource, out: Writable): Promise<number> {
  const failed = once(out, 'error').then(([error]) => Promise.reject(error));
  failed.catch(() => {});
  let rows = 0;
  let pending = '';
  const flush = async () => {
    if (pending === '') return;
    const chunk = pending;
    pending = '';
    if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
  };
  try {
    for await (const row of table.rows()) {
      pending += `${JSON.stringify(row)}\n`;
      rows += 1;
      if (pending.length >= WRITE_CHUNK) await flush();
    }
    await flush();
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
    return rows;
  } catch (error) {
    out.destroy();
    throw error;
  }
}

/** A byte range of a file. */
export interface FileSlice {
  file: string;
  start: number;
  bytes: number;
}

/** The rows of the JSON lines in `slices`, in order (each slice holds whole lines). */
export async function* readRowLines(slices: readonly FileSlice[]): AsyncGenerator<Row> {
  for (const slice of slices) {
    if (slice.bytes <= 0) continue;
    let rest = '';
    const end = slice.start + slice.bytes - 1;
    for await (const chunk of createReadStream(slice.file, { start: slice.start, end, encoding: 'utf8' })) {
      const text = rest + (chunk as string);
      const lines = text.split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) yield JSON.parse(line) as Row;
    }
    if (rest !== '') yield JSON.parse(rest) as Row;
  }
}
