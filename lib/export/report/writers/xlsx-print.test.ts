import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { describe, expect, it } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import type { Column, Row, TableSource } from '../../../domain/table.ts';
import { writeXlsx } from './xlsx.ts';
import { wordWrappedLines } from './xlsx-print.ts';

const text = (key: string, header: string, extra: Partial<Column> = {}): Column => ({
  key,
  header,
  kind: 'text',
  ...extra,
});
// The width the producer measures over every row, as Form 8949's does: `-6,250,747.95`.
const money = (key: string, header: string): Column => ({ key, header, kind: 'decimal', width: 13 });

/** The columns of a Form 8949 sheet: labels, a wrapped description, dates, amounts, then ids. */
const FORM_COLUMNS: Column[] = [
  text('tax_year', 'Tax year'),
  text('part', 'Part'),
  text('box', 'Box'),
  text('description', '(a) Description of property', { wrap: true, width: 48 }),
  text('date_acquired', '(b) Date acquired'),
  text('date_sold', '(c) Date sold or disposed of'),
  money('proceeds', '(d) Proceeds (USD)'),
  money('cost', '(e) Cost or other basis (USD)'),
  text('code', '(f) Code(s)'),
  money('adjustment', '(g) Amount of adjustment (USD)'),
  money('gain', '(h) Gain or (loss) (USD)'),
  text('account', 'Account'),
  text('transaction', 'Transaction'),
  text('covers', 'Covers'),
];

const QUANTITY = '48674.825835342912261211';
const FORM_ROW: Row = [
  '2025',
  'I',
  'I',
  `${QUANTITY} DAI (sale transaction ID tx_01JGGASRY80001YH1EYJ2QQ8AY)`,
  '10/08/2024',
  '01/01/2025',
  '6250747.95',
  '5788691.18',
  null,
  null,
  '462056.77',
  'acc_95ec340e08c6',
  'tx_01JGGASRY80001YH1EYJ2QQ8AY',
  '2025-01-01 to 2025-12-31: the whole tax year 2025',
];

function source(name: string, title: string, columns: Column[], rows: readonly Row[]): TableSource {
  return {
    spec: { name, title, columns },
    async *rows() {
      yield* rows;
    },
  };
}

/** The table's sheet read back, and the print area the workbook names for it (exceljs misreads `$A:$K`). */
async function sheetOf(
  table: TableSource,
): Promise<{ sheet: ExcelJS.Worksheet; printArea: string | undefined }> {
  const { out, bytes } = sink();
  await writeXlsx([table], out);
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load((await bytes) as unknown as ExcelJS.Buffer);
  const sheet = workbook.worksheets[0];
  if (sheet === undefined) throw new Error('no sheet');
  const book = await (await JSZip.loadAsync(await bytes)).file('xl/workbook.xml')?.async('string');
  const printArea = /<definedName name="_xlnm.Print_Area"[^>]*>[^!]*!([^<]*)</.exec(book ?? '')?.[1];
  return { sheet, printArea };
}

describe('form sheets on paper', () => {
  it('prints Form 8949 fitted one page wide and pages down, its columns (a) to (h) and their labels only, header row repeated', async () => {
    const { sheet, printArea } = await sheetOf(source('form-8949', 'Form 8949', FORM_COLUMNS, [FORM_ROW]));
    const { orientation, fitToPage, fitToWidth, fitToHeight, printTitlesRow, printTitlesColumn } =
      sheet.pageSetup;
    expect({
      orientation,
      fitToPage,
      fitToWidth,
      fitToHeight,
      printArea,
      printTitlesRow,
      printTitlesColumn,
    }).toEqual({
      orientation: 'landscape',
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      printArea: '$A:$K',
      printTitlesRow: '1:1',
      printTitlesColumn: undefined,
    });
  });

  it("keeps Form 8949's description wide enough for its longest quantity, wrapped, its amounts' columns as wide as unprinted", async () => {
    const { sheet } = await sheetOf(source('form-8949', 'Form 8949', FORM_COLUMNS, [FORM_ROW]));
    const plain = (await sheetOf(source('disposals-like', 'Other', FORM_COLUMNS, [FORM_ROW]))).sheet;
    const width = (s: ExcelJS.Worksheet, n: number) => s.getColumn(n).width ?? 0;
    expect([
      width(sheet, 4) >= QUANTITY.length + 2,
      sheet.getCell(2, 4).alignment?.wrapText,
      [7, 8, 10, 11].map((n) => width(sheet, n)),
    ]).toEqual([true, true, [7, 8, 10, 11].map((n) => width(plain, n))]);
  });

  it('prints a tax summary with every column, its notes included, one page wide', async () => {
    const columns = [
      text('tax_year', 'Tax year'),
      text('form_line', 'Form line'),
      text('item', 'Item'),
      money('amount', 'Amount (USD)'),
      text('note', 'Note', { wrap: true, width: 60 }),
      text('currency', 'Currency'),
    ];
    const row: Row = [
      '2024/25',
      'SA108 box 13.2',
      'Cryptoassets: disposal proceeds',
      '1789864.82',
      'x '.repeat(80),
      'USD',
    ];
    const { sheet, printArea } = await sheetOf(
      source('tax_summary', 'Capital Gains summary', columns, [row]),
    );
    const { fitToPage, fitToWidth, fitToHeight } = sheet.pageSetup;
    expect({ fitToPage, fitToWidth, fitToHeight, printArea }).toEqual({
      fitToPage: true,
      fitToWidth: 1,
      fitToHeight: 0,
      printArea: undefined,
    });
  });

  it("moves the Disposals' exact quantity past Gain or loss when the filed columns do not fit otherwise; another table keeps it beside Quantity", async () => {
    const columns: Column[] = [
      text('token', 'Token'),
      { key: 'quantity', header: 'Quantity', kind: 'decimal', exact: true },
      { key: 'date_acquired', header: 'Date acquired (UTC)', kind: 'datetime' },
      { key: 'date_disposed', header: 'Date disposed (UTC)', kind: 'datetime' },
      { key: 'proceeds', header: 'Proceeds (USD)', kind: 'decimal' },
      { key: 'cost_basis', header: 'Cost basis (USD)', kind: 'decimal' },
      { key: 'gain_loss', header: 'Gain or loss (USD)', kind: 'decimal' },
      text('disposed_tx_id', 'Disposing transaction'),
    ];
    const row: Row = [
      'stETH',
      '10792.706737744208463651',
      '2024-10-08T00:49:44.000Z',
      '2025-01-01T07:03:09.000Z',
      '122577.67',
      '14468.73',
      '108108.94',
      'tx_01JGGASRY80001YH1EYJ2QQ8AY',
    ];
    const headers = async (name: string) => {
      const { sheet } = await sheetOf(source(name, 'Disposals', columns, [row]));
      return (sheet.getRow(1).values as unknown[]).slice(1);
    };
    expect([await headers('disposals'), (await headers('other')).slice(1, 4)]).toEqual([
      [
        'Token',
        'Quantity',
        'Date acquired (UTC)',
        'Date disposed (UTC)',
        'Proceeds (USD)',
        'Cost basis (USD)',
        'Gain or loss (USD)',
        'Quantity (exact)',
        'Disposing transaction',
      ],
      ['Quantity', 'Quantity (exact)', 'Date acquired (UTC)'],
    ]);
  });

  it('counts the lines of a text wrapped at spaces, a word longer than a line broken', () => {
    expect([
      wordWrappedLines('0.5 BTC (sale transaction ID tx-1)', 40),
      wordWrappedLines('0.5 BTC (sale transaction ID tx-1)', 14),
      wordWrappedLines('abcdefghij', 4),
      wordWrappedLines('one\ntwo', 10),
    ]).toEqual([1, 3, 3, 2]);
  });
});
