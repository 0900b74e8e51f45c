/**
 * The XML of a workbook's package parts besides its sheets and styles: content types,
 * relationships, document properties and `xl/workbook.xml`, written as exceljs 4.4's writer wrote
 * them (same elements, attributes and order), and the escape every text and attribute goes through.
 */

/** Characters {@link xmlEncode} changes: markup, and controls XML 1.0 cannot carry (dropped). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it finds
const NEEDS_ENCODING = /[<>&'"\x7F\x00-\x08\x0B-\x0C\x0E-\x1F]/;

/**
 * `text` as XML text or attribute value: `<>&'"` as entities; C0 controls but tab, LF and CR,
 * and DEL, dropped (the sheet's text cells escape those first: `encodeSheetText`).
 */
export function xmlEncode(text: string): string {
  const first = NEEDS_ENCODING.exec(text);
  if (first === null) return text;
  let result = text.slice(0, first.index);
  let from = first.index;
  for (let i = first.index; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    let entity: string;
    if (code === 34) entity = '&quot;';
    else if (code === 38) entity = '&amp;';
    else if (code === 39) entity = '&apos;';
    else if (code === 60) entity = '&lt;';
    else if (code === 62) entity = '&gt;';
    else if (code === 127 || code <= 8 || code === 11 || code === 12 || (code >= 14 && code <= 31))
      entity = '';
    else continue;
    result += text.slice(from, i) + entity;
    from = i + 1;
  }
  return result + text.slice(from);
}

/** The letters of column `n` (1 = A, 27 = AA). */
export function columnLetters(n: number): string {
  let letters = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

const DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const RELATIONSHIPS = '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">';
const REL_TYPE = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const SPREADSHEETML = 'application/vnd.openxmlformats-officedocument.spreadsheetml';

/** A sheet of the package as its parts name it. */
export interface PackageSheet {
  /** Its number: `xl/worksheets/sheet<id>.xml` and the `sheetId` of `xl/workbook.xml`. */
  id: number;
  name: string;
  /** The sheet's print area and titles (`A:F`, `1:1`, `A:A`), as defined names. */
  printArea?: string;
  printTitlesRow?: string;
  printTitlesColumn?: string;
}

/** `_rels/.rels`: the workbook and the document properties. */
export function rootRelsXml(): string {
  return (
    `${DECLARATION}${RELATIONSHIPS}` +
    `<Relationship Id="rId1" Type="${REL_TYPE}/officeDocument" Target="xl/workbook.xml"/>` +
    '<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>' +
    `<Relationship Id="rId3" Type="${REL_TYPE}/extended-properties" Target="docProps/app.xml"/></Relationships>`
  );
}

/** `[Content_Types].xml` of a workbook whose sheets are `sheets` (in tab order). */
export function contentTypesXml(sheets: readonly PackageSheet[]): string {
  const override = (part: string, type: string) => `<Override PartName="${part}" ContentType="${type}"/>`;
  return (
    `${DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    override('/xl/workbook.xml', `${SPREADSHEETML}.sheet.main+xml`) +
    sheets
      .map((sheet) => override(`/xl/worksheets/sheet${sheet.id}.xml`, `${SPREADSHEETML}.worksheet+xml`))
      .join('') +
    override('/xl/theme/theme1.xml', 'application/vnd.openxmlformats-officedocument.theme+xml') +
    override('/xl/styles.xml', `${SPREADSHEETML}.styles+xml`) +
    '<Default Extension="vml" ContentType="application/vnd.openxmlformats-officedocument.vmlDrawing"/>' +
    override('/docProps/core.xml', 'application/vnd.openxmlformats-package.core-properties+xml') +
    override('/docProps/app.xml', 'application/vnd.openxmlformats-officedocument.extended-properties+xml') +
    '</Types>'
  );
}

/** `docProps/app.xml`: the sheets' names, in tab order. */
export function appXml(sheets: readonly PackageSheet[]): string {
  const names = sheets.map((sheet) => `<vt:lpstr>${xmlEncode(sheet.name)}</vt:lpstr>`).join('');
  return (
    `${DECLARATION}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">` +
    '<Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity><ScaleCrop>false</ScaleCrop>' +
    `<HeadingPairs><vt:vector size="2" baseType="variant"><vt:variant><vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>${sheets.length}</vt:i4></vt:variant></vt:vector></HeadingPairs>` +
    `<TitlesOfParts><vt:vector size="${sheets.length}" baseType="lpstr">${names}</vt:vector></TitlesOfParts>` +
    '<Company></Company><LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc><HyperlinksChanged>false</HyperlinksChanged><AppVersion>16.0300</AppVersion></Properties>'
  );
}

/** `docProps/core.xml`: who made the workbook and when (created = modified, to the second). */
export function coreXml(creator: string, created: Date): string {
  const when = created.toISOString().replace(/[.]\d{3}/, '');
  return (
    `${DECLARATION}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `<dc:creator>${xmlEncode(creator)}</dc:creator><cp:lastModifiedBy>${xmlEncode(creator)}</cp:lastModifiedBy>` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${when}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${when}</dcterms:modified></cp:coreProperties>`
  );
}

/** `xl/_rels/workbook.xml.rels`: styles, theme, then the sheets in tab order (`rId3`, …). */
export function workbookRelsXml(sheets: readonly PackageSheet[]): string {
  const sheetRels = sheets
    .map(
      (sheet, i) =>
        `<Relationship Id="rId${i + 3}" Type="${REL_TYPE}/worksheet" Target="worksheets/sheet${sheet.id}.xml"/>`,
    )
    .join('');
  return (
    `${DECLARATION}${RELATIONSHIPS}<Relationship Id="rId1" Type="${REL_TYPE}/styles" Target="styles.xml"/>` +
    `<Relationship Id="rId2" Type="${REL_TYPE}/theme" Target="theme/theme1.xml"/>${sheetRels}</Relationships>`
  );
}

/**
 * `xl/workbook.xml`: the sheets in tab order (each with its relationship of
 * {@link workbookRelsXml}), and each sheet's print area and print titles as defined names.
 */
export function workbookXml(sheets: readonly PackageSheet[]): string {
  const listed = sheets
    .map(
      (sheet, i) =>
        `<sheet sheetId="${sheet.id}" name="${xmlEncode(sheet.name)}" state="visible" r:id="rId${i + 3}"/>`,
    )
    .join('');
  const names = sheets.flatMap((sheet, index) => definedNames(sheet, index)).join('');
  return (
    `${DECLARATION}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" mc:Ignorable="x15" xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main">` +
    '<fileVersion appName="xl" lastEdited="5" lowestEdited="5" rupBuild="9303"/><workbookPr defaultThemeVersion="164011" filterPrivacy="1"/>' +
    `<sheets>${listed}</sheets>${names === '' ? '' : `<definedNames>${names}</definedNames>`}<calcPr calcId="171027"/></workbook>`
  );
}

/** The print area (each of `A:F&&H:K`) and print titles (columns, then rows) of the sheet at `index`. */
function definedNames(sheet: PackageSheet, index: number): string[] {
  // A quoted sheet name doubles its apostrophes (`'Bob''s'!$1:$1`).
  const quoted = `'${sheet.name.replace(/'/g, "''")}'`;
  const range = (span: string) => {
    const [from, to] = span.split(':');
    return `${quoted}!$${from}:$${to}`;
  };
  const name = (which: string, ranges: string[]) =>
    `<definedName name="${which}" localSheetId="${index}">${xmlEncode(ranges.join(','))}</definedName>`;
  const names = (sheet.printArea ?? '')
    .split('&&')
    .filter((area) => area !== '')
    .map((area) => name('_xlnm.Print_Area', [range(area)]));
  const titles = [sheet.printTitlesColumn, sheet.printTitlesRow].filter(
    (span): span is string => span !== undefined && span !== '',
  );
  if (titles.length > 0) names.push(name('_xlnm.Print_Titles', titles.map(range)));
  return names;
}
