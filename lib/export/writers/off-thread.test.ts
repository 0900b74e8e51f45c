import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TableSource } from '../table.ts';
import { writeCsv } from './csv.ts';
import { writeOffThread } from './off-thread.ts';
import { sink } from './test-support.ts';

const spec = {
  name: 'transactions',
  title: 'Transactions',
  columns: [
    { key: 'id', header: 'ID', kind: 'text' as const },
    { key: 'amount', header: 'Amount', kind: 'decimal' as const },
  ],
};

function table(count: number, bad?: number): TableSource {
  return {
    spec,
    async *rows() {
      for (let i = 0; i < count; i += 1) yield [`tx-${i}`, i === bad ? 'not a number' : `${i}.50`];
    },
  };
}

describe('writeOffThread', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-off-thread-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes the same CSV bytes in a worker thread as on this one, and counts the rows', async () => {
    const file = join(dir, 'worker.csv');
    const rows = await writeOffThread('csv', [table(5_000)], file);
    const here = sink();
    await writeCsv(table(5_000), here.out);
    expect(rows).toBe(5_000);
    expect(await readFile(file)).toEqual(await here.bytes);
  });

  it('writes a workbook of several tables, each table in order, and counts every data row', async () => {
    const file = join(dir, 'worker.xlsx');
    const rows = await writeOffThread(
      'xlsx',
      [table(1_500), { ...table(3), spec: { ...spec, name: 'b', title: 'B' } }],
      file,
    );
    const ExcelJS = (await import('exceljs')).default;
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file);
    expect(rows).toBe(1_503);
    expect(workbook.worksheets.map((sheet) => [sheet.name, sheet.rowCount])).toEqual([
      ['Transactions', 1_501],
      ['B', 4],
    ]);
    expect(workbook.getWorksheet('Transactions')?.getCell('B1501').value).toBe(1499.5);
  });

  it("rejects with the writer's error when a cell does not fit its column, and stops reading rows", async () => {
    let read = 0;
    const source: TableSource = {
      spec,
      async *rows() {
        for (let i = 0; i < 100_000; i += 1) {
          read += 1;
          yield [`tx-${i}`, i === 10 ? 'not a number' : '1'];
        }
      },
    };
    await expect(writeOffThread('csv', [source], join(dir, 'bad.csv'))).rejects.toThrow(
      /render worker failed: ReportCellError: .*not a decimal literal/,
    );
    expect(read).toBeLessThan(100_000);
  });

  it('rejects when the worker script cannot be loaded', async () => {
    const missing = { url: new URL('file:///nonexistent/render-worker.mjs'), execArgv: [] };
    await expect(writeOffThread('csv', [table(1)], join(dir, 'x.csv'), { script: missing })).rejects.toThrow(
      /render worker/,
    );
  });
});
