import { ascii } from './xlsx-bytes.ts';
import type { CellAlignment, CellKind, StyleSheet } from './xlsx-styles.ts';
import { columnLetters, type PackageSheet, xmlEncode } from './xlsx-xml.ts';

/** A cell value as the sheet writer takes it: dates as `Date`, text as a string or one-run rich text. */
export type SheetValue = string | number | Date | null | { richText: { text: string }[] };

/** Print setup of a sheet (the part of OOXML's `<pageSetup>` and print names the writer uses). */
export interface PageSetup {
  orientation?: 'portrait' | 'landscape';
  /** Print scale in percent (100 unless given). */
  scale?: number;
  /** Fit the sheet to `fitToWidth` pages across and `fitToHeight` down (0: as many as it takes). */
  fitToPage?: boolean;
  fitToWidth?: number;
  fitToHeight?: number;
  /** `overThenDown`: every page across a band of rows before the next band. */
  pageOrder?: 'downThenOver' | 'overThenDown';
  /** Margins in inches. */
  margins?: { left: number; right: number; top: number; bottom: number; header: number; footer: number };
  /** Columns printed, e.g. `A:F`. */
  printArea?: string;
  /** Rows and columns repeated on every page, e.g. `1:1` and `A:A`. */
  printTitlesRow?: string;
  printTitlesColumn?: string;
}

/** The page header and footer of a sheet, in OOXML's codes (`&L`, `&C`, `&R`, `&B`, `&P`, `&N`). */
export interface HeaderFooter {
  oddHeader?: string;
  oddFooter?: string;
}

/** What a sheet starts with: its name, page setup, column widths and header row. */
export interface SheetLayout {
  name: string;
  /** Width of each column, in characters. */
  widths: readonly number[];
  pageSetup: PageSetup;
  headerFooter: HeaderFooter;
  /** The header row's cells (bold), their alignments, and its height in points (0: the default). */
  header: readonly SheetValue[];
  headerAlignments: readonly CellAlignment[];
  headerHeight: number;
  /** The auto-filter spans the header's first `autoFilterColumns` columns. */
  autoFilterColumns: number;
}

const WORKSHEET_OPEN =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac" xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac">';
/** The header row frozen at the top. */
const FROZEN_HEADER =
  '<sheetViews><sheetView workbookViewId="0"><pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/></sheetView></sheetViews>';
const SHEET_FORMAT =
  '<sheetFormatPr defaultRowHeight="15" outlineLevelRow="0" outlineLevelCol="0" x14ac:dyDescent="55"/>';
/** A column of this width needs no `<col>`: it is the default. */
const DEFAULT_WIDTH = 9;
const DEFAULT_MARGINS = { left: 0.7, right: 0.7, top: 0.75, bottom: 0.75, header: 0.3, footer: 0.3 };
/** "Use the printer's resolution". */
const PRINTER_DPI = 4294967295;
/** The bold type of the header row. */
const BOLD = { bold: true } as const;

/**
 * One sheet's XML (`xl/worksheets/sheet<n>.xml`), written as exceljs 4.4's streaming writer wrote
 * it (`worksheet.addRow(…).commit()`): the same elements, attributes, escapes, date serials and
 * style indexes. Rows are numbered from 1 (the header) in the order given; a row without values or
 * height takes its number but is left out, and a cell without value or style is left out.
 */
export class SheetXml {
  private next = 1;
  private readonly letters: string[] = [];
  private readonly cellOpens: Uint8Array[] = [];

  constructor(
    private readonly layout: SheetLayout,
    private readonly styles: StyleSheet,
  ) {}

  /** The sheet as the package lists it: `id`, name, print area and titles. */
  packageSheet(id: number): PackageSheet {
    const { printArea, printTitlesRow, printTitlesColumn } = this.layout.pageSetup;
    return {
      id,
      name: this.layout.name,
      ...(printArea === undefined ? {} : { printArea }),
      ...(printTitlesRow === undefined ? {} : { printTitlesRow }),
      ...(printTitlesColumn === undefined ? {} : { printTitlesColumn }),
    };
  }

  /** The XML up to and including the header row. */
  open(): string {
    const { layout, styles } = this;
    const fitsPage = fitToPage(layout.pageSetup);
    // The header row's style (bold) is registered before its cells', as exceljs registers them.
    const rowStyle = styles.id({ font: BOLD });
    const cellStyles = layout.header.map((value, i) =>
      styles.id({ font: BOLD, alignment: layout.headerAlignments[i] ?? {} }, kindOf(value)),
    );
    return (
      WORKSHEET_OPEN +
      (fitsPage ? '<sheetPr><pageSetUpPr fitToPage="1"/></sheetPr>' : '') +
      FROZEN_HEADER +
      SHEET_FORMAT +
      colsXml(layout.widths) +
      '<sheetData>' +
      this.row(layout.header, cellStyles, layout.headerHeight, rowStyle)
    );
  }

  /**
   * One row's XML (the sheet's next row): `values` with their style indexes (of
   * {@link StyleSheet.id}), `height` in points (0: the default), `rowStyle` the row's own style.
   */
  row(values: readonly SheetValue[], styleIds: readonly number[], height: number, rowStyle = 0): string {
    const number = this.takeRowNumber();
    let hasValues = false;
    for (const value of values) if (value !== null) hasValues = true;
    if (!hasValues && height === 0) return '';
    let cells = '';
    for (let i = 0; i < values.length; i += 1) {
      cells += this.cell(`${this.letter(i)}${number}`, values[i] as SheetValue, styleIds[i] ?? 0);
    }
    const ht = height ? ` ht="${height}" customHeight="1"` : '';
    const s = rowStyle ? ` s="${rowStyle}" customFormat="1"` : '';
    const open = `<row r="${number}"${ht} spans="1:${values.length}"${s} x14ac:dyDescent="0.25"`;
    return cells === '' ? `${open}/>` : `${open}>${cells}</row>`;
  }

  /** The number of the sheet's next row, taken (for a row written as bytes: `BatchRows`). */
  takeRowNumber(): number {
    const number = this.next;
    this.next += 1;
    return number;
  }

  /** `<c r="` and the letters of column `index` (0-based), as bytes. */
  cellOpen(index: number): Uint8Array {
    let open = this.cellOpens[index];
    if (open === undefined) {
      open = ascii(`<c r="${this.letter(index)}`);
      this.cellOpens[index] = open;
    }
    return open;
  }

  /** The XML after the last row. */
  close(): string {
    const { pageSetup, headerFooter, autoFilterColumns } = this.layout;
    const margins = pageSetup.margins ?? DEFAULT_MARGINS;
    return (
      `</sheetData><autoFilter ref="A1:${columnLetters(autoFilterColumns)}1"/>` +
      `<pageMargins left="${margins.left}" right="${margins.right}" top="${margins.top}" bottom="${margins.bottom}" header="${margins.header}" footer="${margins.footer}"/>` +
      pageSetupXml(pageSetup) +
      headerFooterXml(headerFooter) +
      '</worksheet>'
    );
  }

  private cell(address: string, value: SheetValue, styleId: number): string {
    const s = styleId ? ` s="${styleId}"` : '';
    if (value === null) return styleId ? `<c r="${address}"${s}/>` : '';
    if (typeof value === 'string') return `<c r="${address}"${s} t="str"><v>${xmlEncode(value)}</v></c>`;
    if (typeof value === 'number') return `<c r="${address}"${s}><v>${value}</v></c>`;
    if (value instanceof Date) return `<c r="${address}"${s}><v>${excelDate(value)}</v></c>`;
    const runs = value.richText.map((run) => `<r>${textXml(run.text)}</r>`).join('');
    return `<c r="${address}"${s} t="inlineStr">${runs === '' ? '<is/>' : `<is>${runs}</is>`}</c>`;
  }

  private letter(index: number): string {
    let letter = this.letters[index];
    if (letter === undefined) {
      letter = columnLetters(index + 1);
      this.letters[index] = letter;
    }
    return letter;
  }
}

/** What a value is, for the style of a cell whose style names no number format. */
export function kindOf(value: SheetValue): CellKind {
  return typeof value === 'number' ? 'number' : value instanceof Date ? 'date' : 'other';
}

/** A date as a spreadsheet's serial day number (1900 date system: 25569 is 1970-01-01). */
function excelDate(date: Date): number {
  return 25569 + date.getTime() / (24 * 3600 * 1000);
}

/** A rich text run's `<t>`: space kept where it leads, trails or breaks a line. */
function textXml(text: string): string {
  const preserve = /^\s|\n|\s$/.test(text) ? ' xml:space="preserve"' : '';
  return `<t${preserve}>${xmlEncode(text)}</t>`;
}

/** `<cols>`: adjacent columns of one width share a `<col>`; columns of the default width have none. */
function colsXml(widths: readonly number[]): string {
  let xml = '';
  let from = 0;
  for (let i = 0; i < widths.length; i += 1) {
    const width = widths[i] as number;
    if (i + 1 < widths.length && widths[i + 1] === width) continue;
    if (width !== DEFAULT_WIDTH) {
      xml += `<col min="${from + 1}" max="${i + 1}"${width ? ` width="${width}"` : ''} customWidth="1"/>`;
    }
    from = i + 1;
  }
  return xml === '' ? '' : `<cols>${xml}</cols>`;
}

/** Whether the sheet prints fitted to pages: as set, else when it names pages to fit and no scale. */
function fitToPage(setup: PageSetup): boolean {
  if ('fitToPage' in setup) return setup.fitToPage === true;
  return Boolean((setup.fitToWidth || setup.fitToHeight) && !setup.scale);
}

/** `<pageSetup>`: orientation, the printer's resolution, page order, scale and pages to fit. */
function pageSetupXml(setup: PageSetup): string {
  const order = setup.pageOrder === 'overThenDown' ? ' pageOrder="overThenDown"' : '';
  return (
    `<pageSetup orientation="${setup.orientation ?? 'portrait'}" horizontalDpi="${PRINTER_DPI}" verticalDpi="${PRINTER_DPI}"${order}` +
    ` scale="${setup.scale ?? 100}" fitToWidth="${setup.fitToWidth ?? 1}" fitToHeight="${setup.fitToHeight ?? 1}"/>`
  );
}

/** `<headerFooter>` with the parts that have text; nothing when none has. */
function headerFooterXml(headerFooter: HeaderFooter): string {
  const part = (tag: string, text: string | undefined) =>
    text === undefined || text === '' ? '' : `<${tag}>${xmlEncode(text)}</${tag}>`;
  const parts = part('oddHeader', headerFooter.oddHeader) + part('oddFooter', headerFooter.oddFooter);
  return parts === '' ? '' : `<headerFooter>${parts}</headerFooter>`;
}
