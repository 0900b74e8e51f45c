import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type PDFDocument from 'pdfkit';
import { TaxPackFontsError } from './errors.ts';

/**
 * Drawing primitives of the PDF tax pack (see `pdf-pack.ts`): an A4 document whose only fonts
 * are DejaVu Sans (regular and bold), embedded, so every glyph prints the same on any reader.
 */

/** The two embedded faces, by the names `doc.font()` takes. */
export const FONTS = { regular: 'DejaVuSans', bold: 'DejaVuSans-Bold' } as const;

/**
 * The folder beside a function's bundle that holds the font files (`infra/bundling.ts` copies
 * its `files` there), and the files the pack embeds.
 */
export const BUNDLED_FONTS = { folder: 'fonts', files: ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'] } as const;

/**
 * Folder of the DejaVu TrueType files: from a bundle (a Lambda function), the `fonts/` folder
 * shipped beside it; from source, or a bundle shipped without them, the `dejavu-fonts-ttf` package.
 */
export function dejavuFolder(): string {
  if (!import.meta.url.endsWith('.ts')) {
    const beside = fileURLToPath(new URL(`./${BUNDLED_FONTS.folder}/`, import.meta.url));
    if (BUNDLED_FONTS.files.every((file) => existsSync(join(beside, file)))) return beside;
  }
  try {
    return join(dirname(createRequire(import.meta.url).resolve('dejavu-fonts-ttf/package.json')), 'ttf');
  } catch (error) {
    throw new TaxPackFontsError({ cause: error });
  }
}

/** A4 page with margins that leave room for the header band and the footer. */
const PAGE = { size: 'A4', margins: { top: 56, bottom: 56, left: 48, right: 48 } } as const;

/**
 * pdfkit, loaded on the first document: it costs about 29 MB of memory once loaded, which every
 * export without a PDF (CSV and workbook alone) would otherwise carry for nothing.
 */
let pdfkit: Promise<typeof PDFDocument> | undefined;
const loadPdfkit = (): Promise<typeof PDFDocument> => {
  pdfkit ??= import('pdfkit').then((module) => module.default);
  return pdfkit;
};

/**
 * A new document with the DejaVu faces registered and selected. `font: null` keeps pdfkit from
 * loading its built-in Helvetica (AFM files read from its own folder, which a bundle lacks).
 */
export async function newDocument(
  fontDir: string,
  info: { Title: string; Subject: string; CreationDate: Date },
): Promise<PDFKit.PDFDocument> {
  const Document = await loadPdfkit();
  // The types allow only a font name; pdfkit itself reads null as "no default font".
  const options = { ...PAGE, bufferPages: true, font: null, info } as unknown as PDFKit.PDFDocumentOptions;
  const doc = new Document(options);
  const [regular, bold] = BUNDLED_FONTS.files;
  doc.registerFont(FONTS.regular, join(fontDir, regular));
  doc.registerFont(FONTS.bold, join(fontDir, bold));
  doc.font(FONTS.regular).fontSize(9);
  return doc;
}

/** Width the text may take on a page. */
export const contentWidth = (doc: PDFKit.PDFDocument): number =>
  doc.page.width - doc.page.margins.left - doc.page.margins.right;

/** Bottom of the area text may take on the current page. */
const bottom = (doc: PDFKit.PDFDocument): number => doc.page.height - doc.page.margins.bottom;

/** Starts a new page unless `height` more points fit on this one. */
export function ensureRoom(doc: PDFKit.PDFDocument, height: number): void {
  if (doc.y + height > bottom(doc)) doc.addPage();
}

/** A section heading, kept on the page of what follows it. */
export function heading(doc: PDFKit.PDFDocument, text: string, size = 13): void {
  ensureRoom(doc, size * 4);
  doc.moveDown(0.6).font(FONTS.bold).fontSize(size).text(text, doc.page.margins.left).moveDown(0.3);
  doc.font(FONTS.regular).fontSize(9);
}

/** A paragraph of plain text at the left margin. */
export function paragraph(doc: PDFKit.PDFDocument, text: string): void {
  doc
    .font(FONTS.regular)
    .fontSize(9)
    .text(text, doc.page.margins.left, doc.y, { width: contentWidth(doc) });
  doc.moveDown(0.4);
}

/** Label → value lines, labels bold in a fixed column. */
export function pairs(doc: PDFKit.PDFDocument, lines: readonly (readonly [string, string])[]): void {
  const left = doc.page.margins.left;
  const labelWidth = 130;
  const valueWidth = contentWidth(doc) - labelWidth;
  for (const [label, value] of lines) {
    doc.font(FONTS.regular).fontSize(9);
    const height = Math.max(doc.heightOfString(value, { width: valueWidth }), 11) + 3;
    ensureRoom(doc, height);
    const y = doc.y;
    doc.font(FONTS.bold).text(label, left, y, { width: labelWidth - 8 });
    doc.font(FONTS.regular).text(value, left + labelWidth, y, { width: valueWidth });
    doc.y = y + height;
  }
  doc.x = left;
}

/** The font size of a table's text, unless it is given another. */
export const TABLE_SIZE = 8;

/** Width a table's column takes besides its text: 4 points between columns, and 1 to spare. */
export const CELL_PADDING = 5;

/** One column of a drawn table: its header, share of the width and alignment. */
export interface PdfColumn {
  header: string;
  /** Relative width: the columns share the content width in proportion. */
  weight: number;
  align?: 'left' | 'right';
}

/**
 * A table with a bold header row (repeated on each page it runs onto); `bold` rows (totals) are
 * set bold. Cells wrap within their column. `size`: the font size of its text (8 points).
 */
export function table(
  doc: PDFKit.PDFDocument,
  columns: readonly PdfColumn[],
  rows: readonly (readonly string[])[],
  bold: (row: readonly string[]) => boolean = () => false,
  size = TABLE_SIZE,
): void {
  const left = doc.page.margins.left;
  const total = columns.reduce((sum, column) => sum + column.weight, 0);
  const widths = columns.map((column) => (contentWidth(doc) * column.weight) / total - 4);
  const headers = columns.map((column) => column.header);
  /** Draws one row; `repeat`: a row of data, after which the header is drawn again on a new page. */
  const drawRow = (cells: readonly string[], font: string, repeat: boolean): void => {
    doc.font(font).fontSize(size);
    const height = Math.max(...cells.map((cell, i) => doc.heightOfString(cell, { width: widths[i] }))) + 4;
    if (doc.y + height > bottom(doc)) {
      doc.addPage();
      if (repeat) drawRow(headers, FONTS.bold, false);
      doc.font(font).fontSize(size);
    }
    const y = doc.y;
    let x = left;
    cells.forEach((cell, i) => {
      doc.text(cell, x + 2, y + 2, { width: widths[i] ?? 0, align: columns[i]?.align ?? 'left' });
      x += (widths[i] ?? 0) + 4;
    });
    doc
      .moveTo(left, y + height)
      .lineTo(left + contentWidth(doc), y + height)
      .lineWidth(0.3)
      .strokeColor('#999999')
      .stroke();
    doc.y = y + height;
  };
  drawRow(headers, FONTS.bold, false);
  for (const row of rows) drawRow(row, bold(row) ? FONTS.bold : FONTS.regular, true);
  doc.x = left;
  doc.moveDown(0.5);
}

/**
 * Writes `header` at the top and `footer(page, pages)` at the foot of every buffered page: run
 * once all content is laid out, so the page count is known. The margins are lifted while writing,
 * so pdfkit does not take the footer for overflow and add a page.
 */
export function stampPages(
  doc: PDFKit.PDFDocument,
  header: string | null,
  footer: (page: number, pages: number) => string,
): number {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const { top, bottom: foot } = doc.page.margins;
    doc.page.margins.top = 0;
    doc.page.margins.bottom = 0;
    const left = doc.page.margins.left;
    const width = contentWidth(doc);
    if (header !== null) {
      doc.font(FONTS.bold).fontSize(10).fillColor('#b00020');
      doc.text(header, left, 24, { width, align: 'center', lineBreak: false });
      doc.fillColor('black');
    }
    doc.font(FONTS.regular).fontSize(7).fillColor('#333333');
    doc.text(footer(i - range.start + 1, range.count), left, doc.page.height - 40, {
      width,
      align: 'center',
    });
    doc.fillColor('black');
    doc.page.margins.top = top;
    doc.page.margins.bottom = foot;
  }
  return range.count;
}
