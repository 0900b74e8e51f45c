import { Worker } from 'node:worker_threads';
import JSZip from 'jszip';
import { describe, expect, it, vi } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import type { Column, TableSource } from '../../../domain/table.ts';
import { XlsxWorkerError } from './errors.ts';
import { writeXlsx, type XlsxOptions } from './xlsx.ts';

const note: Column = { key: 'note', header: 'Note', kind: 'text' };
const amount: Column = { key: 'amount', header: 'Amount', kind: 'decimal', exact: true };
const at: Column = { key: 'at', header: 'At', kind: 'datetime', timeZone: 'Europe/Berlin' };

/** Rows of every cell kind, wrapped and escaped text among them, over several batches. */
function transactions(total: number): TableSource {
  return {
    spec: { name: 'transactions', title: 'Transactions', columns: [note, amount, at] },
    async *rows() {
      for (let i = 0; i < total; i += 1) {
        const text = i % 97 === 0 ? `memo ${i}\nsecond line\u0007 ` : `tx-${i}`;
        const value = i % 13 === 0 ? `0.${'1'.repeat(20)}` : `${i}.${i % 100}`;
        yield [text, i % 31 === 0 ? null : value, new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString()];
      }
    },
  };
}

const readme: TableSource = {
  spec: { name: 'readme', title: 'Read me', columns: [note] },
  async *rows() {
    yield ['About this workbook'];
  },
};

/** Every part of the workbook but its properties (which carry the time of writing), by name. */
async function parts(options: XlsxOptions, rows = 3000): Promise<Record<string, string | undefined>> {
  const { out, bytes } = sink();
  await writeXlsx([transactions(rows), readme], out, {
    created: new Date('2026-01-01T00:00:00Z'),
    firstSheet: 'readme',
    maxRowsPerSheet: 2000,
    ...options,
  });
  const zip = await JSZip.loadAsync(await bytes);
  const entries = Object.keys(zip.files).sort();
  return Object.fromEntries(
    await Promise.all(entries.map(async (name) => [name, await zip.file(name)?.async('string')] as const)),
  );
}

const fixture = (name: string) => new URL(`../../../../test/fixtures/xlsx-workers/${name}`, import.meta.url);

describe('writeXlsx on a worker thread', () => {
  it('returns the same workbook, part by part, as written on the calling thread', async () => {
    const [worker, same] = await Promise.all([parts({ thread: 'worker' }), parts({ thread: 'same-thread' })]);

    expect(Object.keys(worker)).toContain('xl/worksheets/sheet2.xml');
    expect(worker).toEqual(same);
  });

  it('hands the worker finished rows only: per batch three typed arrays, moved to it (not copied), no value per cell', async () => {
    const posted = vi.spyOn(Worker.prototype, 'postMessage');
    try {
      await parts({ thread: 'worker' });
      const batches = posted.mock.calls.filter(([message]) => (message as { type: string }).type === 'rows');
      // 3000 rows in sheets of 2000: batches of 256 rows, each sheet's last one shorter, and the read me's row.
      expect(batches.length).toBe(8 + 4 + 1);
      for (const [message, transfer] of batches) {
        const { batch } = message as { batch: Record<string, unknown> };
        expect(Object.keys(batch).sort()).toEqual(['layout', 'numbers', 'styles', 'text', 'width']);
        expect(batch.layout).toBeInstanceOf(Int32Array);
        expect(batch.numbers).toBeInstanceOf(Float64Array);
        expect(batch.text).toBeInstanceOf(Uint8Array);
        // Moved: the main thread's arrays are empty once posted, so nothing was copied per cell.
        const arrays = [batch.layout, batch.numbers, batch.text] as Uint8Array[];
        expect(transfer).toEqual(arrays.map((array) => array.buffer));
        expect(arrays.map((array) => array.buffer.byteLength)).toEqual([0, 0, 0]);
      }
    } finally {
      posted.mockRestore();
    }
  });

  it('rejects with a typed error whose cause is the failure when the workbook fails in the worker', async () => {
    const { out } = sink();

    const written = writeXlsx([transactions(10)], out, { workerEntry: fixture('book-fails.ts') });

    const error = await written.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(XlsxWorkerError);
    expect((error as XlsxWorkerError).code).toBe('xlsx_worker_failed');
    expect(((error as XlsxWorkerError).cause as Error).message).toBe('disk on fire');
    expect(out.destroyed).toBe(true);
  });

  it('rejects with a typed error, never hangs, when the worker crashes', async () => {
    const { out } = sink();

    const error = await writeXlsx([transactions(10)], out, { workerEntry: fixture('crashes.ts') }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(XlsxWorkerError);
    expect(((error as XlsxWorkerError).cause as Error).message).toBe('worker crashed');
    expect(out.destroyed).toBe(true);
  });

  it('rejects with a typed error, never hangs, when the worker exits before the workbook is complete', async () => {
    const { out } = sink();

    const error = await writeXlsx([transactions(5000)], out, { workerEntry: fixture('exits.ts') }).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(XlsxWorkerError);
    expect((error as XlsxWorkerError).message).toMatch(/exited with code 7/);
    expect(out.destroyed).toBe(true);
  });
});
