import { type ChildProcess, spawn } from 'node:child_process';
import JSZip from 'jszip';
import { afterEach, describe, expect, it } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import type { Column, TableSource } from '../../../domain/table.ts';
import { XlsxWorkerError } from './errors.ts';
import { writeXlsx, type XlsxOptions } from './xlsx.ts';
import { endIdleXlsxWorker, idleXlsxWorker, warmXlsxWriter } from './xlsx-workers.ts';

const note: Column = { key: 'note', header: 'Note', kind: 'text' };
const amount: Column = { key: 'amount', header: 'Amount', kind: 'decimal', exact: true };
const at: Column = { key: 'at', header: 'At', kind: 'datetime', timeZone: 'Europe/Berlin' };

/** Rows of every cell kind (`seed` varies the text, decimals and styles), over several batches. */
function transactions(total: number, seed: number): TableSource {
  return {
    spec: { name: 'transactions', title: 'Transactions', columns: [note, amount, at] },
    async *rows() {
      for (let i = 0; i < total; i += 1) {
        const text = i % (97 + seed) === 0 ? `memo ${i}\nsecond line\u0007 ` : `tx-${seed}-${i}`;
        const value = i % 13 === 0 ? `0.${'1'.repeat(20 + seed)}` : `${i}.${i % (100 + seed)}`;
        yield [text, i % 31 === 0 ? null : value, new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()];
      }
    },
  };
}

/** Two different workbooks: a state the first left in its worker would show in the second. */
const BOOKS: { rows: number; seed: number; options: XlsxOptions }[] = [
  { rows: 3000, seed: 0, options: { maxRowsPerSheet: 2000, print: { center: 'first' } } },
  { rows: 700, seed: 5, options: { creator: 'second', print: { right: 'DEMO DATA' } } },
];

/** Every part of the workbook, in the zip's order, as bytes. */
async function parts(book: (typeof BOOKS)[number], options: XlsxOptions = {}): Promise<[string, Buffer][]> {
  const { out, bytes } = sink();
  await writeXlsx([transactions(book.rows, book.seed)], out, {
    created: new Date('2026-01-01T00:00:00Z'),
    ...book.options,
    ...options,
  });
  const zip = await JSZip.loadAsync(await bytes);
  return await Promise.all(
    Object.values(zip.files).map(
      async (file): Promise<[string, Buffer]> => [file.name, await file.async('nodebuffer')],
    ),
  );
}

const fixture = (name: string) => new URL(`../../../../test/fixtures/xlsx-workers/${name}`, import.meta.url);

/** Children still running when their test ends (one that hangs) are killed. */
const children: ChildProcess[] = [];

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill();
  await endIdleXlsxWorker();
});

describe('XLSX worker threads, started early and reused', () => {
  it('writes two workbooks in a row on one worker, part for part as two new workers write them', async () => {
    const fresh: [string, Buffer][][] = [];
    const freshThreads: (number | undefined)[] = [];
    for (const book of BOOKS) {
      await endIdleXlsxWorker();
      fresh.push(await parts(book));
      freshThreads.push(idleXlsxWorker());
    }
    await endIdleXlsxWorker();

    const first = await parts(BOOKS[0] as (typeof BOOKS)[number]);
    const thread = idleXlsxWorker();
    const second = await parts(BOOKS[1] as (typeof BOOKS)[number]);

    expect(new Set(freshThreads).size).toBe(2);
    expect(thread).toBeDefined();
    expect(idleXlsxWorker()).toBe(thread);
    expect(first.map(([name]) => name)).toContain('xl/worksheets/sheet2.xml');
    expect([first, second]).toEqual(fresh);
  });

  it('writes the workbook of an export on the worker started as the export started', async () => {
    warmXlsxWriter(['csv', 'xlsx']);
    const warmed = idleXlsxWorker();

    const written = await parts(BOOKS[1] as (typeof BOOKS)[number]);

    expect(warmed).toBeDefined();
    expect(idleXlsxWorker()).toBe(warmed);
    expect(written).toEqual(await parts(BOOKS[1] as (typeof BOOKS)[number], { thread: 'same-thread' }));
  });

  it('starts no worker for an export without a workbook', () => {
    warmXlsxWriter(['csv']);

    expect(idleXlsxWorker()).toBeUndefined();
  });

  it('ends a worker whose workbook failed: the next workbook gets a new worker', async () => {
    const entry = fixture('fails-first-book.ts');

    const errors = [];
    for (let i = 0; i < 2; i += 1) {
      const { out } = sink();
      errors.push(
        await writeXlsx([transactions(10, 0)], out, { workerEntry: entry }).catch((caught) => caught),
      );
    }

    for (const error of errors) {
      expect(error).toBeInstanceOf(XlsxWorkerError);
      expect(((error as XlsxWorkerError).cause as Error).message).toBe('disk on fire');
    }
    expect(idleXlsxWorker()).toBeUndefined();
  });

  it.each([
    ['started', 'warm'],
    ['left after a workbook', 'written'],
  ])('never keeps the process alive: an idle worker %s', async (_, how) => {
    const script = new URL('../../../../test/fixtures/xlsx-workers/idle-process.ts', import.meta.url);
    const child = spawn(process.execPath, ['--import', 'tsx', script.pathname, how], { stdio: 'pipe' });
    children.push(child);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.pipe(process.stderr);

    // A worker that kept the child alive would hang this test until its time-out.
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));

    expect(code).toBe(0);
    expect(stdout).toMatch(/^idle worker \d+\n$/);
  });
});
