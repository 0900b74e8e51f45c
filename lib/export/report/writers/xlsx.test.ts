import Big from 'big.js';
import ExcelJS from 'exceljs';
import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { SlowWritable, sink, table } from '../../../../test/support/writers.ts';
import { type Column, numberWidth, type Row, type TableSource } from '../../../domain/table.ts';
import { ReportCellError } from './errors.ts';
import { writeXlsx, type XlsxOptions } from './xlsx.ts';

const note: Column = { key: 'note', header: 'Note', kind: 'text' };
const amount: Column = { key: 'amount', header: 'Amount', kind: 'decimal' };
const quantity: Column = { key: 'quantity', header: 'Quantity', kind: 'decimal', exact: true };
const count: Column = { key: 'count', header: 'Count', kind: 'integer' };
const at: Column = { key: 'at', header: 'At', kind: 'datetime', timeZone: 'Europe/Berlin' };

async function xlsx(sources: TableSource[], options?: XlsxOptions): Promise<ExcelJS.Workbook> {
  const { out, bytes } = sink();
  await writeXlsx(sources, out, options);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await bytes) as unknown as ExcelJS.Buffer);
  return workbook;
}

function firstSheet(workbook: ExcelJS.Workbook): ExcelJS.Worksheet {
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new Error('no sheet');
  return sheet;
}

describe('numberWidth', () => {
  it('counts the characters of a number shown with thousands separators', () => {
    // '-1,234,567.89', '1,234', '-5', '999', '-123,456,789,012,345.25', '1,000.000001', '0.5'
    const literals = ['-1234567.89', '1234', '-5', '999', '-123456789012345.25', '1000.000001', '0.5'];
    expect(literals.map(numberWidth)).toEqual([13, 5, 2, 3, 23, 12, 3]);
  });
});

/** Maps a read-back row to source cells: numbers via big.js, dates from the zone's wall time. */
function backToSource(columns: readonly Column[], row: ExcelJS.Row): Row {
  let at = 1;
  return columns.map((column) => {
    const cell = row.getCell(at);
    at += 1;
    const value = cell.value;
    if (value === null || value === undefined) return null;
    if (column.kind === 'decimal') {
      const exactText = column.exact ? row.getCell(at++).value : null;
      return typeof exactText === 'string' ? exactText : new Big(String(value)).toFixed();
    }
    if (column.kind === 'datetime') {
      const wall = DateTime.fromJSDate(value as Date, { zone: 'utc' });
      return DateTime.fromObject(wall.toObject(), { zone: column.timeZone }).toUTC().toISO();
    }
    return column.kind === 'text' ? cell.text : String(value);
  });
}

describe('writeXlsx', () => {
  it('returns decimal and integer cells as numbers', async () => {
    const sheet = firstSheet(await xlsx([table([amount, count], [['-1.25', '42']])]));

    expect([sheet.getCell('A2').value, sheet.getCell('B2').value]).toEqual([-1.25, 42]);
  });

  it('returns decimal cells formatted with the source literal decimals', async () => {
    const sheet = firstSheet(await xlsx([table([amount, amount], [['1234.50', '7']])]));

    expect([sheet.getCell('A2').numFmt, sheet.getCell('B2').numFmt]).toEqual(['#,##0.00', '#,##0']);
  });

  it('returns datetimes as the Europe/Berlin wall time in winter and summer', async () => {
    const rows = [['2025-01-14T09:26:53.000Z'], ['2025-07-14T09:26:53.000Z']];

    const sheet = firstSheet(await xlsx([table([at], rows)]));

    expect([sheet.getCell('A2').value, sheet.getCell('A3').value]).toEqual([
      new Date('2025-01-14T10:26:53.000Z'),
      new Date('2025-07-14T11:26:53.000Z'),
    ]);
  });

  it('returns datetime cells with a date-time number format', async () => {
    const sheet = firstSheet(await xlsx([table([at], [['2025-01-14T09:26:53Z']])]));

    expect(sheet.getCell('A2').numFmt).toBe('yyyy-mm-dd hh:mm:ss');
  });

  it('returns formula-like text as plain string cells, never formulas', async () => {
    const values = ['=1+2', '+SUM(A1)', '-2+3', '@cmd', '=HYPERLINK("http://x")'];

    const sheet = firstSheet(
      await xlsx([
        table(
          [note],
          values.map((v) => [v]),
        ),
      ]),
    );

    const cells = values.map((_, i) => sheet.getCell(`A${i + 2}`));
    expect(cells.map((cell) => [cell.type, cell.value])).toEqual(
      values.map((v) => [ExcelJS.ValueType.String, v]),
    );
  });

  it('returns text with leading and trailing whitespace kept', async () => {
    const values = ['  lead', 'trail  ', '\tTAB', 'two\nlines\n'];

    const sheet = firstSheet(
      await xlsx([
        table(
          [note],
          values.map((v) => [v]),
        ),
      ]),
    );

    expect(values.map((_, i) => sheet.getCell(`A${i + 2}`).text)).toEqual(values);
  });

  it('returns control characters, CR, DEL, escape look-alikes and entities read back as sent', async () => {
    const values = [
      'a\u0000b\u0001c\u001b[0m',
      'cr\ronly',
      'crlf\r\nx',
      'del\u007f',
      '_x0041_',
      '_x005F_x0041_',
      '<b>&amp;</b>',
    ];

    const sheet = firstSheet(
      await xlsx([
        table(
          [note],
          values.map((v) => [v]),
        ),
      ]),
    );

    expect(values.map((_, i) => sheet.getCell(`A${i + 2}`).text)).toEqual(values);
  });

  it('returns a header with control characters and formula-like text read back as sent', async () => {
    const odd: Column = { key: 'x', header: '=tab\there\u0001', kind: 'text' };

    const sheet = firstSheet(await xlsx([table([odd], [])]));

    expect([sheet.getCell('A1').type, sheet.getCell('A1').text]).toEqual([
      ExcelJS.ValueType.RichText,
      '=tab\there\u0001',
    ]);
  });

  it('returns an amount past the range of a spreadsheet number as its exact text instead of failing', async () => {
    const huge = `1${'0'.repeat(400)}`;

    const sheet = firstSheet(await xlsx([table([amount, quantity], [[huge, huge]])]));

    expect([sheet.getCell('A2').value, sheet.getCell('B2').value, sheet.getCell('C2').value]).toEqual([
      huge,
      huge,
      huge,
    ]);
  });

  it('returns a bold header row of column headers', async () => {
    const sheet = firstSheet(await xlsx([table([note, amount], [])]));

    expect([sheet.getRow(1).values, sheet.getCell('A1').font?.bold, sheet.getCell('B1').font?.bold]).toEqual([
      [undefined, 'Note', 'Amount'],
      true,
      true,
    ]);
  });

  it('returns a sheet with the header row frozen', async () => {
    const sheet = firstSheet(await xlsx([table([note], [['a']])]));

    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('returns a sheet with an autofilter over the header', async () => {
    const sheet = firstSheet(await xlsx([table([note, amount, count], [['a', '1', '2']])]));

    expect(sheet.autoFilter).toBe('A1:C1');
  });

  it('returns column widths from the header and the sampled values, capped', async () => {
    const sheet = firstSheet(
      await xlsx([table([note, count], [['x'.repeat(500), '1']])], { maxColumnWidth: 40 }),
    );

    // "Count": 5 letters, bold and indented like its numbers (2), padding (2); 9, exceljs's
    // default, which it would leave out of the file, is written as 10.
    expect([sheet.getColumn(1).width, sheet.getColumn(2).width]).toEqual([40, 10]);
  });

  it('returns number columns as wide as the widest value the producer knows, past the sample and the cap', async () => {
    const wide: Column = { ...amount, width: numberWidth('-123456789012345.25') };
    const rows: Row[] = [['1.00'], ['-123456789012345.25']];
    const sheet = firstSheet(await xlsx([table([wide], rows)], { widthSampleRows: 1, maxColumnWidth: 10 }));

    // 19 digits and signs, 4 separators, 2 of padding.
    expect(sheet.getColumn(1).width).toBe(25);
  });

  it('returns decimal columns wide enough for ten billion whatever the sample', async () => {
    const sheet = firstSheet(await xlsx([table([amount], [['1.00']])]));

    expect(sheet.getColumn(1).width).toBeGreaterThanOrEqual('-9,999,999,999.99'.length);
  });

  it('returns headers that are unique in a sheet', async () => {
    const extra: Column = { key: 'extra:amount', header: 'Amount', kind: 'text' };
    const other: Column = { key: 'amount (2)', header: 'Amount (2)', kind: 'text' };
    const sheet = firstSheet(await xlsx([table([amount, extra, other], [['1', 'a', 'b']])]));

    expect([1, 2, 3].map((n) => sheet.getCell(1, n).value)).toEqual(['Amount', 'Amount (3)', 'Amount (2)']);
  });

  it('returns a narrow sheet set up to print landscape at 100 %, header row repeated, titled and numbered', async () => {
    const workbook = await xlsx([table([note], [['a']], 'Trades'), table([note], [['b']], 'About')], {
      print: { center: 'Profile demo · 2025 & more', right: 'DEMO DATA' },
    });

    expect(
      workbook.worksheets.map((sheet) => ({
        orientation: sheet.pageSetup.orientation,
        fitToPage: sheet.pageSetup.fitToPage ?? false,
        scale: sheet.pageSetup.scale,
        printTitlesRow: sheet.pageSetup.printTitlesRow,
        header: sheet.headerFooter.oddHeader,
        footer: sheet.headerFooter.oddFooter,
      })),
    ).toEqual(
      ['Trades', 'About'].map((title) => ({
        orientation: 'landscape',
        fitToPage: false,
        scale: 100,
        printTitlesRow: '1:1',
        header: `&L&B${title}&B&CProfile demo · 2025 && more&R&BDEMO DATA&B`,
        footer: '&CPage &P of &N',
      })),
    );
  });

  it('returns a wide sheet set up to print at 75 % (never shrunk to one page wide), several pages across, its first column repeated', async () => {
    const columns = Array.from(
      { length: 30 },
      (_, i): Column => ({ key: `c${i}`, header: `Column ${i}`, kind: 'text' }),
    );
    const sheet = firstSheet(await xlsx([table(columns, [columns.map(() => 'a value of some width')])]));
    const { fitToPage, scale, printTitlesColumn, printTitlesRow } = sheet.pageSetup;
    expect({ fitToPage: fitToPage ?? false, scale, printTitlesColumn, printTitlesRow }).toEqual({
      fitToPage: false,
      scale: 75,
      printTitlesColumn: 'A:A',
      printTitlesRow: '1:1',
    });
  });

  it('returns a wide sheet with a wrapped text column narrowed to print one page wide at 75 %', async () => {
    const text: Column = { key: 'text', header: 'Text', kind: 'text', wrap: true, width: 140 };
    const sheet = firstSheet(await xlsx([table([note, text], [['topic', 'x '.repeat(200)]])]));
    expect([
      sheet.pageSetup.scale,
      sheet.pageSetup.printTitlesColumn,
      (sheet.getColumn(2).width ?? 0) < 140,
    ]).toEqual([75, undefined, true]);
  });

  it('returns the text columns before the last amount narrowed and wrapped, so the amounts print on the page of their labels', async () => {
    const label: Column = { key: 'item', header: 'Item', kind: 'text' };
    const line: Column = { key: 'form_line', header: 'Form line', kind: 'text' };
    const covers: Column = { key: 'covers', header: 'Covers', kind: 'text' };
    const notes: Column = { key: 'note', header: 'Note', kind: 'text' };
    const item = 'Cryptoassets: allowable costs (including purchase price) '.repeat(2);
    const sheet = firstSheet(
      await xlsx([
        table(
          [note, line, label, covers, amount, notes],
          [['2024/25', 'SA108 box 13.3 '.repeat(3), item, item, '16458417.04', 'x '.repeat(200)]],
        ),
      ]),
    );
    // Printable width of a landscape Letter page less 0.3-inch margins, at 75 %, in points; a
    // column of w characters takes 7 w + 4 points in the DejaVu Sans LibreOffice prints with.
    const room = ((11 - 0.6) * 72 * 100) / 75;
    const widths = [1, 2, 3, 4, 5].map((n) => sheet.getColumn(n).width ?? 0);
    expect([
      widths.reduce((sum, width) => sum + 7 * width + 4, 0) <= room,
      sheet.getRow(2).getCell(3).alignment?.wrapText,
      sheet.getColumn(6).width,
    ]).toEqual([true, true, 60]);
  });

  it('returns a text of several lines wrapped at its line breaks, its row as tall as its lines', async () => {
    const sheet = firstSheet(await xlsx([table([note, amount], [['Rent\nsecond line', '1.5']])]));
    const cell = sheet.getRow(2).getCell(1);
    expect([cell.value, cell.alignment?.wrapText, (sheet.getRow(2).height ?? 0) >= 30]).toEqual([
      'Rent\nsecond line',
      true,
      true,
    ]);
  });

  it('returns the sheet named as first sheet listed first, though written last', async () => {
    const readme: TableSource = {
      ...table([note], [['read me']], 'Read me'),
      spec: { name: 'readme', title: 'Read me', columns: [note] },
    };
    const { out, bytes } = sink();
    const result = await writeXlsx([table([note], [['a']], 'Trades'), readme], out, { firstSheet: 'readme' });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await bytes) as unknown as ExcelJS.Buffer);

    expect([
      workbook.worksheets.map((sheet) => [sheet.name, sheet.getCell('A2').value]),
      result.sheets.map((sheet) => sheet.name),
    ]).toEqual([
      [
        ['Read me', 'read me'],
        ['Trades', 'a'],
      ],
      ['Read me', 'Trades'],
    ]);
  });

  it('returns number columns and their headers aligned right, one character in from the edge', async () => {
    const sheet = firstSheet(await xlsx([table([note, amount, count, quantity], [['a', '1', '2', '3']])]));
    const right = { horizontal: 'right', indent: 1 };
    // Header cells also wrap at the bottom of their (taller) row.
    const header = { wrapText: true, vertical: 'bottom' };

    expect(
      ['A', 'B', 'C', 'D', 'E'].map((col) => [1, 2].map((row) => sheet.getCell(`${col}${row}`).alignment)),
    ).toEqual([
      [header, undefined],
      [{ ...right, ...header }, right],
      [{ ...right, ...header }, right],
      [{ ...right, ...header }, right],
      [header, undefined],
    ]);
  });

  it('returns a long header wrapped at spaces: its column sized by its values and longest word, its row taller', async () => {
    // Longest word "quantity": 8, one more in bold, 2 of margin; 9 characters a line make 5 lines.
    const long: Column = { key: 'long', header: 'Fee quantity in the fee token (exact)', kind: 'text' };
    const sheet = firstSheet(await xlsx([table([long], [['abc']])]));

    expect([sheet.getColumn(1).width, sheet.getRow(1).height]).toEqual([11, 15 * 5]);
  });

  it('returns datetimes aligned left, so on paper they do not run into the next column', async () => {
    const sheet = firstSheet(await xlsx([table([at, note], [['2025-03-14T09:26:53.000Z', 'lending']])]));

    expect(sheet.getCell('A2').alignment).toEqual({ horizontal: 'left' });
  });

  it('returns wrapped text columns at their width, with rows as tall as their wrapped lines', async () => {
    const text: Column = { key: 'text', header: 'Text', kind: 'text', wrap: true, width: 20 };
    const sheet = firstSheet(
      await xlsx([
        table(
          [note, text],
          [
            ['a', 'short'],
            ['b', 'x'.repeat(50)],
          ],
        ),
      ]),
    );

    expect([
      sheet.getColumn(2).width,
      sheet.getCell('B3').alignment,
      sheet.getCell('A3').alignment,
      sheet.getRow(2).height,
      sheet.getRow(3).height,
    ]).toEqual([20, { wrapText: true, vertical: 'top' }, { vertical: 'top' }, undefined, 45]);
  });

  it('returns the exact decimal in the companion column where the number cannot hold it', async () => {
    const sheet = firstSheet(await xlsx([table([quantity], [['0.123456789012345678']])]));

    expect([sheet.getCell('B1').value, sheet.getCell('B2').value]).toEqual([
      'Quantity (exact)',
      '0.123456789012345678',
    ]);
  });

  it('returns an empty companion cell where the number is exact', async () => {
    const sheet = firstSheet(await xlsx([table([quantity], [['1.500000000000000000']])]));

    expect([sheet.getCell('A2').value, sheet.getCell('B2').value]).toEqual([1.5, null]);
  });

  it('returns the exact decimal where it round-trips but has more than 15 significant digits', async () => {
    const sheet = firstSheet(await xlsx([table([quantity], [['0.1234567890123456']])]));

    expect(sheet.getCell('B2').value).toBe('0.1234567890123456');
  });

  it('returns rows past the row limit on "<title> (2)" with the same header', async () => {
    const rows = [['a'], ['b'], ['c']];

    const workbook = await xlsx([table([note], rows, 'Trades')], { maxRowsPerSheet: 2 });

    expect(
      workbook.worksheets.map((s) => [
        s.name,
        s
          .getSheetValues()
          .slice(1)
          .map((r) => (r as unknown[])[1]),
      ]),
    ).toEqual([
      ['Trades', ['Note', 'a', 'b']],
      ['Trades (2)', ['Note', 'c']],
    ]);
  });

  it('returns one result entry per written sheet with its data row count', async () => {
    const { out } = sink();

    const result = await writeXlsx([table([note], [['a'], ['b'], ['c']], 'Trades')], out, {
      maxRowsPerSheet: 2,
    });

    expect(result.sheets).toEqual([
      { name: 'Trades', table: 'transactions', title: 'Trades', rows: 2 },
      { name: 'Trades (2)', table: 'transactions', title: 'Trades', rows: 1 },
    ]);
  });

  it('returns a header-only sheet for an empty table', async () => {
    const sheet = firstSheet(await xlsx([table([note], [])]));

    expect([sheet.rowCount, sheet.getCell('A1').value]).toEqual([1, 'Note']);
  });

  it('returns one sheet per table with Excel-valid names', async () => {
    const workbook = await xlsx([
      table([note], [], 'Gains: 2025/Q1 [EUR] *draft?'),
      table([note], [], 'A very long sheet title that Excel would refuse'),
    ]);

    expect(workbook.worksheets.map((s) => s.name)).toEqual([
      'Gains_ 2025_Q1 _EUR_ _draft_',
      'A very long sheet title that Ex',
    ]);
  });

  it('refuses a non-decimal string in a decimal column, naming the column', async () => {
    const { out } = sink();

    const written = writeXlsx(
      [
        table(
          [note, amount],
          [
            ['ok', '1'],
            ['ok', '=1+2'],
          ],
        ),
      ],
      out,
    );

    await expect(written).rejects.toThrow(ReportCellError);
    await expect(written).rejects.toMatchObject({ column: 'amount', row: 2 });
  });

  it('returns every cell value equal to the source rows when read back', async () => {
    const columns = [note, amount, quantity, count, at];
    const rows: Row[] = [
      ['=1+2', '-1.25', '0.123456789012345678', '3', '2025-03-14T09:26:53.000Z'],
      ['say "hi"\nthere', '1234567.89', '-12345678901.000000000000000001', '-7', '2025-07-14T09:26:53.123Z'],
      ['Zürich — 東京 🚀', '0.000000000000000001', '1.5', '0', '2025-10-26T03:30:00.000Z'],
      [' \tpadded ', '0', '0', '0', '2025-03-30T01:00:00.000Z'],
      [null, null, null, null, null],
    ];

    const sheet = firstSheet(await xlsx([table(columns, rows)]));

    const readBack = rows.map((_, i) => backToSource(columns, sheet.getRow(i + 2)));
    const expected = rows.map((row) =>
      row.map((cell, i) =>
        cell !== null && columns[i]?.kind === 'decimal' ? new Big(cell).toFixed() : cell,
      ),
    );
    expect(readBack).toEqual(expected);
  });

  it('rejects and stops writing when the output is destroyed', async () => {
    const { out } = sink();
    const rows = {
      spec: { name: 'transactions', title: 'T', columns: [count] },
      async *rows() {
        for (let i = 0; ; i += 1) {
          if (i === 1000) out.destroy(new Error('upload failed'));
          yield [String(i)];
        }
      },
    };

    await expect(writeXlsx([rows], out)).rejects.toThrow('upload failed');
  });

  it('rejects with the source error and destroys the output when the rows fail', async () => {
    const { out } = sink();
    const failing: TableSource = {
      spec: { name: 'transactions', title: 'T', columns: [count] },
      async *rows() {
        yield ['1'];
        throw new Error('source broke');
      },
    };

    await expect(writeXlsx([failing], out)).rejects.toThrow('source broke');
    expect(out.destroyed).toBe(true);
  });

  it('returns 200k rows to a slow writer while waiting for it to drain, with bounded buffering', async () => {
    const total = 200_000;
    const source: TableSource = {
      spec: { name: 'transactions', title: 'T', columns: [note, quantity] },
      async *rows() {
        for (let i = 0; i < total; i += 1) yield [`tx-${i}-${(i * 7919) % 100_003}`, `${i}.${i * 31_337}`];
      },
    };
    const out = new SlowWritable(16 * 1024);

    const result = await writeXlsx([source], out);

    expect(result.sheets).toEqual([{ name: 'T', table: 'transactions', title: 'T', rows: total }]);
    expect(result.pacing.waits).toBeGreaterThan(0);
    // Unpaced, exceljs buffers the whole sheet (~30 MB here) before the slow writer sees it.
    expect(result.pacing.peakBufferedBytes).toBeLessThan(512 * 1024);
    expect(out.received).toBeGreaterThan(4 * 1024 * 1024);
  });
});
