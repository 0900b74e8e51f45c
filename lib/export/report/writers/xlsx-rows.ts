import type { Style, Worksheet } from 'exceljs';
import type { WireValue } from './xlsx-book.ts';

/**
 * exceljs 4.4 internals the row writer reads and keeps in step (lib/stream/xlsx/worksheet-writer.js):
 * the sheet's XML stream, the rows not yet committed, the number of the next row, and whether the
 * `<sheetData>` element has been opened (by the header row).
 */
interface WorksheetInternals {
  stream: { write(text: string): void };
  _rows: unknown[];
  _rowZero: number;
  startedData?: boolean;
  _workbook: { styles: StylesInternals };
}

/** exceljs's style registry (lib/xlsx/xform/style/styles-xform.js): a style's id, remembered per style object. */
interface StylesInternals {
  addStyleModel(style: Partial<Style>, cellType?: number): number;
}

/** exceljs's `Enums.ValueType` of the cell values a data row holds. */
const NULL = 0;
const NUMBER = 2;
const STRING = 3;
const DATE = 4;

/** What the writer needs of exceljs's own helpers (lib/utils/utils.js and col-cache.js). */
export interface ExcelHelpers {
  xmlEncode(text: string): string;
  /** Column letters of a 1-based column number. */
  n2l(column: number): string;
}

/** Loads exceljs's helpers by their own modules (not the package entry, which loads all of exceljs). */
export async function loadHelpers(): Promise<ExcelHelpers> {
  const [utils, colCache] = await Promise.all([
    import('exceljs/lib/utils/utils.js'),
    import('exceljs/lib/utils/col-cache.js'),
  ]);
  return {
    xmlEncode: (text) => utils.default.xmlEncode(text),
    n2l: (column) => colCache.default.n2l(column),
  };
}

/** One data row's cells: values (dates as `Date`), their style objects, and the row's height (0: default). */
export interface DataRow {
  values: readonly (WireValue | Date)[];
  styles: readonly Partial<Style>[];
  height: number;
}

/**
 * Writes data rows into a sheet's XML as exceljs's streaming writer does (`row.commit()` of
 * `worksheet.addRow`, see lib/xlsx/xform/sheet/row-xform.js and cell-xform.js), byte for byte,
 * without its Row and Cell objects and XML stream: the same `<row>` and `<c>` elements, the same
 * style ids (registered through exceljs's own registry, in the same order), the same escapes and
 * date serials. Rows with rich text, or a sheet in a state it does not expect, are left to
 * exceljs ({@link RowXml.write} returns false).
 */
export class RowXml {
  private readonly letters: string[] = [];
  /** The `s` attribute of a data row (exceljs gives each row a style object of its own, `{}`). */
  private rowStyle: string | undefined;

  constructor(private readonly helpers: ExcelHelpers) {}

  /** A new sheet: the row style is registered again at its first row, as exceljs would. */
  reset(): void {
    this.rowStyle = undefined;
  }

  /** Writes `row` as the sheet's next row and returns true, or returns false for exceljs to write it. */
  write(worksheet: Worksheet, row: DataRow): boolean {
    const sheet = worksheet as unknown as WorksheetInternals;
    if (sheet._rows.length > 0 || sheet.startedData !== true) return false;
    const { values, styles, height } = row;
    let hasValues = false;
    for (const value of values) {
      if (value === null) continue;
      if (typeof value === 'object' && !(value instanceof Date)) return false;
      hasValues = true;
    }
    const number = sheet._rowZero;
    sheet._rowZero = number + 1;
    // exceljs leaves out a row without values or height (and registers none of its styles).
    if (!hasValues && height === 0) return true;
    const registry = sheet._workbook.styles;
    if (this.rowStyle === undefined) {
      const id = registry.addStyleModel({});
      this.rowStyle = id ? ` s="${id}" customFormat="1"` : '';
    }
    const ht = height ? ` ht="${height}" customHeight="1"` : '';
    let cells = '';
    for (let i = 0; i < values.length; i += 1) {
      cells += this.cell(registry, number, i, values[i] as WireValue | Date, styles[i] ?? {});
    }
    const open = `<row r="${number}"${ht} spans="1:${values.length}"${this.rowStyle} x14ac:dyDescent="0.25"`;
    // An element without content is closed as exceljs's XML stream closes it.
    sheet.stream.write(cells === '' ? `${open}/>` : `${open}>${cells}</row>`);
    return true;
  }

  private cell(
    registry: StylesInternals,
    row: number,
    index: number,
    value: WireValue | Date,
    style: Partial<Style>,
  ): string {
    const type =
      value === null ? NULL : typeof value === 'number' ? NUMBER : typeof value === 'string' ? STRING : DATE;
    const id = registry.addStyleModel(style, type);
    if (type === NULL && !id) return '';
    const address = `${this.letter(index)}${row}`;
    const s = id ? ` s="${id}"` : '';
    if (value === null) return `<c r="${address}"${s}/>`;
    if (typeof value === 'string') {
      return `<c r="${address}"${s} t="str"><v>${this.helpers.xmlEncode(value)}</v></c>`;
    }
    // A date is its serial day number (exceljs's `dateToExcel`, 1900 system).
    const shown = typeof value === 'number' ? value : 25569 + (value as Date).getTime() / (24 * 3600 * 1000);
    return `<c r="${address}"${s}><v>${this.helpers.xmlEncode(String(shown))}</v></c>`;
  }

  private letter(index: number): string {
    let letter = this.letters[index];
    if (letter === undefined) {
      letter = this.helpers.n2l(index + 1);
      this.letters[index] = letter;
    }
    return letter;
  }
}
