import { xmlEncode } from './xlsx-xml.ts';

/** How a cell's text sits in it (the part of OOXML's `<alignment>` the writer uses). */
export interface CellAlignment {
  horizontal?: 'left' | 'center' | 'right' | 'fill' | 'centerContinuous' | 'distributed' | 'justify';
  vertical?: 'top' | 'middle' | 'bottom' | 'distributed' | 'justify';
  wrapText?: boolean;
  /** Indent in steps of about one character (a positive integer; 0 is none). */
  indent?: number;
}

/** A cell's style: its number format, bold type, alignment. */
export interface CellStyle {
  numFmt?: string;
  font?: { bold: true };
  alignment?: CellAlignment;
}

/** What a cell holds, for the style of a cell whose style has no number format. */
export type CellKind = 'number' | 'date' | 'other';

/** The number formats every spreadsheet knows by id (ECMA-376 §18.8.30): no `<numFmt>` needed. */
const BUILT_IN_FORMATS: ReadonlyMap<string, number> = new Map([
  ['General', 0],
  ['0', 1],
  ['0.00', 2],
  ['#,##0', 3],
  ['#,##0.00', 4],
  ['0%', 9],
  ['0.00%', 10],
  ['0.00E+00', 11],
  ['# ?/?', 12],
  ['# ??/??', 13],
  ['mm-dd-yy', 14],
  ['d-mmm-yy', 15],
  ['d-mmm', 16],
  ['mmm-yy', 17],
  ['h:mm AM/PM', 18],
  ['h:mm:ss AM/PM', 19],
  ['h:mm', 20],
  ['h:mm:ss', 21],
  ['m/d/yy "h":mm', 22],
  ['#,##0 ;(#,##0)', 37],
  ['#,##0 ;[Red](#,##0)', 38],
  ['#,##0.00 ;(#,##0.00)', 39],
  ['#,##0.00 ;[Red](#,##0.00)', 40],
  ['mm:ss', 45],
  ['[h]:mm:ss', 46],
  ['mmss.0', 47],
  ['##0.0E+0', 48],
  ['@', 49],
]);

/** Custom number formats are numbered from here. */
const FIRST_CUSTOM_FORMAT = 164;

const HORIZONTAL = new Set(['left', 'center', 'right', 'fill', 'centerContinuous', 'distributed', 'justify']);
const VERTICAL = new Set(['top', 'middle', 'bottom', 'distributed', 'justify']);

/** The default font (index 0) and the bold one, as the parts exceljs wrote name them. */
const DEFAULT_FONT =
  '<font><color theme="1"/><family val="2"/><scheme val="minor"/><sz val="11"/><name val="Calibri"/></font>';
const BOLD_FONT = '<font><b/></font>';

const STYLESHEET_OPEN =
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x14ac x16r2" xmlns:x14ac="http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac" xmlns:x16r2="http://schemas.microsoft.com/office/spreadsheetml/2015/02/main">';
const FILLS_TO_CELL_STYLE_XFS =
  '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>';
const STYLESHEET_CLOSE =
  '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles><dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/><extLst><ext uri="{EB79DEF2-80B8-43e5-95BD-54CBDDF9020C}" xmlns:x14="http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"><x14:slicerStyles defaultSlicerStyle="SlicerStyleLight1"/></ext><ext uri="{9260A510-F301-46a8-8635-F512D64BE5F5}" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main"><x15:timelineStyles defaultTimelineStyle="TimeSlicerStyleLight1"/></ext></extLst></styleSheet>';

/**
 * The workbook's cell styles (`xl/styles.xml`): each distinct style gets the index of its `<xf>`
 * (the `s` of its cells), in the order first met, as exceljs's style registry numbers them, with the
 * same `<numFmt>`, `<font>` and `<xf>` elements: index 0 is the plain style.
 */
export class StyleSheet {
  private readonly formats: string[] = [];
  private readonly formatIds = new Map<string, number>();
  private readonly fonts = [DEFAULT_FONT];
  private readonly xfs = ['<xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>'];
  private readonly xfIds = new Map<string, number>([[this.xfs[0] as string, 0]]);

  /**
   * The index of `style`. A style without a number format gets the date format `mm-dd-yy` when
   * first met on a date (`kind`), and the general one otherwise.
   */
  id(style: CellStyle, kind: CellKind = 'number'): number {
    const numFmtId =
      style.numFmt !== undefined && style.numFmt !== ''
        ? this.formatId(style.numFmt)
        : kind === 'date'
          ? this.formatId('mm-dd-yy')
          : 0;
    const fontId = style.font?.bold === true ? this.fontId(BOLD_FONT) : 0;
    const alignment = style.alignment === undefined ? undefined : alignmentXml(style.alignment);
    const applied =
      (numFmtId ? ' applyNumberFormat="1"' : '') +
      (fontId ? ' applyFont="1"' : '') +
      (alignment === undefined ? '' : ' applyAlignment="1"');
    const open = `<xf numFmtId="${numFmtId}" fontId="${fontId}" fillId="0" borderId="0" xfId="0"${applied}`;
    const xf = alignment ? `${open}>${alignment}</xf>` : `${open}/>`;
    let id = this.xfIds.get(xf);
    if (id === undefined) {
      id = this.xfs.length;
      this.xfs.push(xf);
      this.xfIds.set(xf, id);
    }
    return id;
  }

  /** The `xl/styles.xml` part. */
  xml(): string {
    const formats =
      this.formats.length === 0
        ? ''
        : `<numFmts count="${this.formats.length}">${this.formats.join('')}</numFmts>`;
    return (
      `${STYLESHEET_OPEN}${formats}<fonts count="${this.fonts.length}" x14ac:knownFonts="1">${this.fonts.join('')}</fonts>` +
      `${FILLS_TO_CELL_STYLE_XFS}<cellXfs count="${this.xfs.length}">${this.xfs.join('')}</cellXfs>${STYLESHEET_CLOSE}`
    );
  }

  private formatId(code: string): number {
    let id = BUILT_IN_FORMATS.get(code) ?? this.formatIds.get(code);
    if (id === undefined) {
      id = FIRST_CUSTOM_FORMAT + this.formats.length;
      this.formatIds.set(code, id);
      this.formats.push(`<numFmt numFmtId="${id}" formatCode="${xmlEncode(code)}"/>`);
    }
    return id;
  }

  private fontId(xml: string): number {
    let id = this.fonts.indexOf(xml);
    if (id < 0) {
      id = this.fonts.length;
      this.fonts.push(xml);
    }
    return id;
  }
}

/** The `<alignment>` element of `alignment`, or '' when it sets nothing a spreadsheet reads. */
function alignmentXml(alignment: CellAlignment): string {
  const { horizontal, vertical, wrapText, indent } = alignment;
  let attributes = '';
  if (horizontal !== undefined && HORIZONTAL.has(horizontal)) attributes += ` horizontal="${horizontal}"`;
  if (vertical !== undefined && VERTICAL.has(vertical))
    attributes += ` vertical="${vertical === 'middle' ? 'center' : vertical}"`;
  if (wrapText === true) attributes += ' wrapText="1"';
  if (indent !== undefined && Number.isInteger(indent) && indent > 0) attributes += ` indent="${indent}"`;
  return attributes === '' ? '' : `<alignment${attributes}/>`;
}
