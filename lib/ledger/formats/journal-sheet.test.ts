/**
 * The journal table in a workbook (the Journal and Adjusting entries sheets), read back by
 * exceljs's reader: the side a line does not post is an empty cell, while the CSV keeps its `0`.
 */
import ExcelJS from 'exceljs';
import { describe, expect, it } from 'vitest';
import { sink } from '../../../test/support/writers.ts';
import { writeCsv } from '../../export/report/writers/csv.ts';
import { writeXlsx } from '../../export/report/writers/xlsx.ts';
import type { JournalEntry } from '../types.ts';
import { JOURNAL_SPEC, journalRows } from './csv.ts';

const entry: JournalEntry = {
  id: 'J000001',
  date: '2025-10-05',
  description: 'fee',
  txIds: ['tx_1'],
  postings: [
    {
      account: { code: 'Expenses:Crypto:Fees', name: 'Fees', kind: 'fee' },
      debit: '17.95',
      credit: '0',
      currency: 'USD',
    },
    {
      account: { code: 'Assets:Cash-Clearing', name: 'Cash', kind: 'cash' },
      debit: '0',
      credit: '17.95',
      currency: 'USD',
    },
  ],
};

const source = {
  spec: JOURNAL_SPEC,
  rows: async function* () {
    yield* journalRows(entry);
  },
};

describe('the journal table in a workbook', () => {
  it('leaves the unposted side of each line an empty cell', async () => {
    const { out, bytes } = sink();
    await writeXlsx([source], out);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await bytes) as unknown as ExcelJS.Buffer);
    const sheet = workbook.getWorksheet('Journal');
    const cells = [2, 3].map((n) => [5, 6].map((column) => sheet?.getRow(n).getCell(column).value ?? null));
    expect(cells).toEqual([
      [17.95, null],
      [null, 17.95],
    ]);
  });

  it('keeps the 0 in the CSV', async () => {
    const { out, bytes } = sink();
    await writeCsv(source, out);
    const lines = (await bytes)
      .toString('utf8')
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/);
    expect(lines.slice(1).map((line) => line.split(',').slice(4, 6))).toEqual([
      ['17.95', '0'],
      ['0', '17.95'],
    ]);
  });
});
