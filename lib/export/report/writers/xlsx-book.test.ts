import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import type { Column, TableSource } from '../../../domain/table.ts';
import { writeXlsx } from './xlsx.ts';
import {
  BatchBuilder,
  CELL_DATE,
  CELL_INLINE,
  CELL_INLINE_KEPT,
  CELL_NUMBER,
  CELL_TEXT,
  type RowBatch,
  type WireStyle,
} from './xlsx-batch.ts';
import { type SheetStart, XlsxBook } from './xlsx-book.ts';

/** A cell value as the test states it: a number under a date style is a date's epoch milliseconds. */
type Value = string | number | null | { richText: { text: string }[] };

const CREATED = Date.UTC(2025, 0, 2, 3, 4, 5);

const narrow: SheetStart = {
  name: 'First',
  widths: [10, 9, 22, 22],
  pageSetup: {
    orientation: 'landscape',
    printTitlesRow: '1:1',
    margins: { left: 0.3, right: 0.3, top: 0.75, bottom: 0.75, header: 0.3, footer: 0.3 },
    fitToPage: false,
    scale: 82,
  },
  headerFooter: { oddHeader: '&L&BFirst & <co>&B&CProfile', oddFooter: '&CPage &P of &N' },
  autoFilterColumns: 4,
  header: ['Id', 'When', { richText: [{ text: ' Amount & co ' }] }, 'Note'],
  headerAlignments: [
    { wrapText: true, vertical: 'bottom' },
    { wrapText: true, vertical: 'bottom' },
    { horizontal: 'right', indent: 1, wrapText: true, vertical: 'bottom' },
    { wrapText: true, vertical: 'bottom' },
  ],
  headerHeight: 30,
};

const wide: SheetStart = {
  name: 'Second',
  widths: [9, 9, 30, 12],
  pageSetup: {
    orientation: 'landscape',
    printTitlesRow: '1:1',
    printTitlesColumn: 'A:A',
    pageOrder: 'overThenDown',
    fitToPage: false,
    scale: 75,
  },
  headerFooter: {},
  autoFilterColumns: 4,
  header: ['A', 'B', 'C', 'D'],
  headerAlignments: [{}, { wrapText: false }, { horizontal: 'left' }, { vertical: 'middle' }],
  headerHeight: 0,
};

const form: SheetStart = {
  name: 'Form',
  widths: [12, 12, 12, 12],
  pageSetup: {
    orientation: 'landscape',
    printTitlesRow: '1:1',
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    printArea: 'A:C',
  },
  headerFooter: { oddFooter: '&CPage &P of &N' },
  autoFilterColumns: 4,
  header: ['(a)', '(b)', '(c)', '(d)'],
  headerAlignments: [{ wrapText: true }, { wrapText: true }, { wrapText: true }, { wrapText: true }],
  headerHeight: 45,
};

// Styles as the writer sends them, the first of each met on cells of every type (a style's index
// follows the type of the first cell it is met on); `date`: numbers in it are dates.
const styles: (WireStyle & { date: boolean })[] = [
  { id: 0, style: {}, date: false },
  { id: 1, style: { numFmt: '#,##0.00' }, date: false },
  { id: 2, style: { numFmt: 'yyyy-mm-dd hh:mm:ss', alignment: { horizontal: 'left' } }, date: true },
  { id: 3, style: { alignment: { wrapText: true, vertical: 'top' } }, date: false },
  { id: 4, style: { alignment: { horizontal: 'right', indent: 1 } }, date: false },
  { id: 5, style: { numFmt: '" "@' }, date: false },
  { id: 6, style: { numFmt: '#,##0.000000000000000', alignment: { wrapText: false } }, date: false },
  { id: 7, style: {}, date: true },
];

/** Rows of four cells: height, values, style ids. */
const rows: [number, Value[], number[]][] = [
  [0, [null, 12.5, Date.UTC(2025, 2, 30, 1, 30), 'plain'], [4, 1, 2, 0]],
  [0, ['<a href="x">&amp;\'</a>', -0.000001234, Date.UTC(1999, 11, 31, 23, 59, 59), ''], [0, 1, 2, 3]],
  [0, ['ctrl \u0001\u0007\u001f\u007f tab\tline\nend', 1e21, null, 'x'], [3, 4, 2, 0]],
  [0, [null, null, null, null], [5, 6, 7, 3]],
  [30, [null, null, null, null], [0, 0, 0, 0]],
  [45, ['three\nline\ntext', 123456789012345, 0, 'ünïcødé 💸'], [3, 1, 2, 3]],
  [0, [{ richText: [{ text: ' padded _x0041_ ' }] }, 7, Date.UTC(2025, 0, 1), null], [0, 1, 2, 4]],
  [
    0,
    ['after rich text', -3, Date.UTC(2025, 0, 2), { richText: [{ text: 'tab_x0009_ &amp; <b>"\'' }] }],
    [5, 6, 7, 0],
  ],
  [0, [{ richText: [{ text: 'line\nbreak' }] }, 0, null, ' x'], [5, 6, 2, 5]],
  [0, [{ richText: [{ text: '' }] }, 2 ** 53, 1e-7, '\u00a0nbsp\u00a0'], [0, 1, 1, 3]],
  [0, ['lone \ud800 half, cr\r, del\u007f', -0, 1e300, 'x'.repeat(40_000)], [0, 1, 1, 0]],
];

/** The rows `from` to `to` as the writer's main thread hands them over: finished, in typed arrays. */
function batch(from: number, to: number, withStyles: boolean): RowBatch {
  const builder = new BatchBuilder(4, rows.length);
  if (withStyles) builder.styles.push(...styles.map(({ id, style }) => ({ id, style })));
  for (const [height, values, ids] of rows.slice(from, to)) {
    builder.beginRow();
    values.forEach((value, i) => {
      const id = ids[i] as number;
      if (value === null) builder.empty(id);
      else if (typeof value === 'number') {
        // A spreadsheet's serial day number of the 1900 date system: 25569 is 1970-01-01.
        if (styles[id]?.date === true) builder.number(25569 + value / 86_400_000, CELL_DATE, id);
        else builder.number(value, CELL_NUMBER, id);
      } else if (typeof value === 'string') builder.text(value, CELL_TEXT, id);
      else {
        const text = value.richText[0]?.text ?? '';
        builder.text(text, /^\s|\n|\s$/.test(text) ? CELL_INLINE_KEPT : CELL_INLINE, id);
      }
    });
    builder.endRow(height);
  }
  return builder.take() as RowBatch;
}

/** Every part of a zip, by name, as text. */
async function partsOf(bytes: Buffer): Promise<Record<string, string | undefined>> {
  const zip = await JSZip.loadAsync(bytes);
  const names = Object.keys(zip.files).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await zip.file(name)?.async('string')] as const)),
  );
}

/** The workbook of three sheets written by this project's writer. */
async function ours(): Promise<Buffer> {
  const { out, bytes } = sink();
  const book = await XlsxBook.open(out, { creator: 'test', created: CREATED });
  book.startSheet(narrow);
  await book.addRows(batch(0, 5, true));
  await book.addRows(batch(5, rows.length, false));
  book.startSheet(wide);
  await book.addRows(batch(2, rows.length, false));
  book.startSheet(form);
  await book.addRows(batch(0, 3, false));
  await book.finish([]);
  return bytes;
}

/**
 * The same workbook written by exceljs's own streaming writer through its public API alone
 * (`addWorksheet`, `addRow`, cell styles, `commit`): the independent reference.
 */
async function exceljs(): Promise<Buffer> {
  const { out, bytes } = sink();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: out,
    useSharedStrings: false,
    useStyles: true,
  });
  workbook.creator = 'test';
  workbook.lastModifiedBy = 'test';
  workbook.created = new Date(CREATED);
  workbook.modified = workbook.created;
  const sheet = (start: SheetStart, from: number, to: number) => {
    const worksheet = workbook.addWorksheet(start.name, {
      views: [{ state: 'frozen', ySplit: 1 }],
      pageSetup: start.pageSetup as Partial<ExcelJS.PageSetup>,
      headerFooter: start.headerFooter,
    });
    worksheet.columns = start.widths.map((width) => ({ width }));
    worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: start.autoFilterColumns } };
    const header = worksheet.addRow([...start.header]);
    header.font = { bold: true };
    start.headerAlignments.forEach((alignment, i) => {
      header.getCell(i + 1).alignment = alignment as Partial<ExcelJS.Alignment>;
    });
    if (start.headerHeight > 0) header.height = start.headerHeight;
    header.commit();
    // One style object per wire style, as the writer had them: exceljs remembers a style by object.
    const byId = styles.map(({ style }) => ({ ...style }) as Partial<ExcelJS.Style>);
    for (const [height, values, ids] of rows.slice(from, to)) {
      const row = worksheet.addRow(
        values.map((value, i) =>
          styles[ids[i] as number]?.date && typeof value === 'number' ? new Date(value) : value,
        ),
      );
      ids.forEach((id, i) => {
        row.getCell(i + 1).style = byId[id] as Partial<ExcelJS.Style>;
      });
      if (height > 0) row.height = height;
      row.commit();
    }
    worksheet.commit();
  };
  sheet(narrow, 0, rows.length);
  sheet(wide, 2, rows.length);
  sheet(form, 0, 3);
  await workbook.commit();
  return bytes;
}

describe('XlsxBook', () => {
  it("writes every part of the workbook as exceljs's own streaming writer does: sheets, rows, cells, escapes, dates, styles, print setup", async () => {
    const [mine, reference] = await Promise.all([ours().then(partsOf), exceljs().then(partsOf)]);

    expect(mine['xl/worksheets/sheet1.xml']).toContain('<row r="6" ht="30" customHeight="1"');
    expect(mine['xl/workbook.xml']).toContain('_xlnm.Print_Area');
    expect(mine).toEqual(reference);
  });

  it("dates every part of the zip at the workbook's creation, so the same workbook is the same bytes", async () => {
    const zip = await JSZip.loadAsync(await ours());
    const dates = new Set(Object.values(zip.files).map((file) => file.date.getTime()));

    // A zip's times are local and to the even second, without zone: read back as UTC by JSZip.
    const local = new Date(CREATED);
    const asWritten = Date.UTC(
      local.getFullYear(),
      local.getMonth(),
      local.getDate(),
      local.getHours(),
      local.getMinutes(),
      local.getSeconds() - (local.getSeconds() % 2),
    );
    expect([...dates]).toEqual([asWritten]);
  });
});

describe('writeXlsx print titles', () => {
  it("doubles an apostrophe of a sheet's name in its print titles' reference", async () => {
    const note: Column = { key: 'note', header: 'Note', kind: 'text' };
    const table: TableSource = {
      spec: { name: 'wallet', title: "Bob's wallet", columns: [note] },
      async *rows() {
        yield ['one'];
      },
    };
    const { out, bytes } = sink();

    await writeXlsx([table], out, { thread: 'same-thread' });

    const workbook = (await partsOf(await bytes))['xl/workbook.xml'];
    expect(workbook).toContain(
      '<definedName name="_xlnm.Print_Titles" localSheetId="0">&apos;Bob&apos;&apos;s wallet&apos;!$1:$1</definedName>',
    );
  });
});
