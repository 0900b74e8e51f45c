import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import { type RowBatch, type SheetStart, type WireStyle, type WireValue, XlsxBook } from './xlsx-book.ts';

const sheet = (name: string, width: number): SheetStart => ({
  name,
  widths: Array.from({ length: width }, (_, i) => 10 + i),
  pageSetup: {},
  headerFooter: {},
  autoFilterColumns: width,
  header: Array.from({ length: width }, (_, i) => `Column ${i}`),
  headerAlignments: Array.from({ length: width }, () => ({ wrapText: true })),
  headerHeight: 0,
});

// Styles as the writer sends them, the first of each met on cells of every type (a style's id
// follows the type of the first cell exceljs sees it on).
const styles: WireStyle[] = [
  { id: 0, style: {}, date: false },
  { id: 1, style: { numFmt: '#,##0.00' }, date: false },
  { id: 2, style: { numFmt: 'yyyy-mm-dd hh:mm:ss', alignment: { horizontal: 'left' } }, date: true },
  { id: 3, style: { alignment: { wrapText: true, vertical: 'top' } }, date: false },
  { id: 4, style: { alignment: { horizontal: 'right', indent: 1 } }, date: false },
];

/** Rows of four cells: height, values, style ids. */
const rows: [number, WireValue[], number[]][] = [
  [0, [null, 12.5, Date.UTC(2025, 2, 30, 1, 30), 'plain'], [4, 1, 2, 0]],
  [0, ['<a href="x">&amp;\'</a>', -0.000001234, Date.UTC(1999, 11, 31, 23, 59, 59), ''], [0, 1, 2, 3]],
  [0, ['ctrl \u0001\u0007\u001f\u007f tab\tline\nend', 1e21, null, 'x'], [3, 4, 2, 0]],
  [0, [null, null, null, null], [0, 1, 2, 3]],
  [30, [null, null, null, null], [0, 0, 0, 0]],
  [45, ['three\nline\ntext', 123456789012345, 0, 'ünïcødé 💸'], [3, 1, 2, 3]],
  [0, [{ richText: [{ text: ' padded _x0041_ ' }] }, 7, Date.UTC(2025, 0, 1), null], [0, 1, 2, 4]],
  [0, ['after rich text', -3, Date.UTC(2025, 0, 2), 'ok'], [0, 4, 2, 0]],
];

function batch(from: number, to: number, withStyles: boolean): RowBatch {
  const chosen = rows.slice(from, to);
  return {
    width: 4,
    styles: withStyles ? styles : [],
    values: chosen.flatMap(([, values]) => values),
    layout: Int32Array.from(chosen.flatMap(([height, , ids]) => [height, ...ids])),
  };
}

/** Every part of a workbook of two sheets written with or without the row writer. */
async function parts(helpers: null | undefined): Promise<Record<string, string | undefined>> {
  const { out, bytes } = sink();
  const book = await XlsxBook.open(out, { creator: 'test', created: 0 }, helpers === null ? { helpers } : {});
  book.startSheet(sheet('First', 4));
  await book.addRows(batch(0, 5, true));
  await book.addRows(batch(5, rows.length, false));
  book.startSheet(sheet('Second', 4));
  await book.addRows(batch(2, rows.length, false));
  await book.finish([]);
  const zip = await JSZip.loadAsync(await bytes);
  const names = Object.keys(zip.files).sort();
  return Object.fromEntries(
    await Promise.all(names.map(async (name) => [name, await zip.file(name)?.async('string')] as const)),
  );
}

describe('data rows written without exceljs row objects', () => {
  it('returns every part of the workbook as exceljs writes it: rows, cells, escapes, dates, styles', async () => {
    const [direct, exceljs] = await Promise.all([parts(undefined), parts(null)]);

    expect(direct['xl/worksheets/sheet1.xml']).toContain('<row r="6" ht="30" customHeight="1"');
    expect(direct).toEqual(exceljs);
  });
});
