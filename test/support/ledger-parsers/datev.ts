/**
 * A reader of DATEV Buchungsstapel files (DATEV-Format, EXTF, header version 700, Formatversion
 * 13), written from DATEV's developer portal (https://developer.datev.de/datev/platform/de/dtvf):
 * the bytes are decoded as Windows-1252, line 1 is read by position as the header, line 2 gives
 * the column names and booking lines are read by those names. Every rule it checks throws with
 * the line and field. Independent of the project's writer.
 */
import Big from 'big.js';
import { type Field, readDelimited } from './delimited.ts';
import { decodeWindows1252 } from './windows-1252.ts';

/** The header fields this reader checks, by their documented position (1-based). */
export interface DatevHeader {
  kennzeichen: string; // 1
  versionsnummer: string; // 2
  formatkategorie: string; // 3
  formatname: string; // 4
  formatversion: string; // 5
  erzeugtAm: string; // 6
  beraternummer: string; // 11
  mandantennummer: string; // 12
  wjBeginn: string; // 13
  sachkontenlaenge: string; // 14
  datumVom: string; // 15
  datumBis: string; // 16
  bezeichnung: string; // 17
  festschreibung: string; // 21
  wkz: string; // 22
  sachkontenrahmen: string; // 27
  fieldCount: number;
}

/** A booking line's documented fields (amount with a decimal point, for big.js). */
export interface DatevBooking {
  line: number;
  umsatz: string;
  sollHaben: 'S' | 'H';
  wkzUmsatz: string;
  konto: string;
  gegenkonto: string;
  belegdatum: string;
  belegfeld1: string;
  buchungstext: string;
  /** Fields 4–6 of an amount in a foreign currency (decimal point), else empty. */
  kurs: string;
  basisUmsatz: string;
  wkzBasisUmsatz: string;
  /** Every column by name, as read. */
  byName: Map<string, string>;
}

/** A Buchungsstapel read back. */
export interface DatevFile {
  text: string;
  header: DatevHeader;
  columns: string[];
  bookings: DatevBooking[];
}

/** The first fourteen columns of a Buchungsstapel as documented, in order. */
export const DOCUMENTED_FIRST_COLUMNS = [
  'Umsatz (ohne Soll/Haben-Kz)',
  'Soll/Haben-Kennzeichen',
  'WKZ Umsatz',
  'Kurs',
  'Basis-Umsatz',
  'WKZ Basis-Umsatz',
  'Konto',
  'Gegenkonto (ohne BU-Schlüssel)',
  'BU-Schlüssel',
  'Belegdatum',
  'Belegfeld 1',
  'Belegfeld 2',
  'Skonto',
  'Buchungstext',
];

const HEADER_FIELDS = 31;
const BOOKING_COLUMNS = 125;

/** What the reader is told beside the file: the Mandant's Basiswährung (EUR unless said). */
export interface DatevReadOptions {
  baseCurrency?: string;
}

/**
 * Field 4 Kurs as the portal's Buchungsstapel description gives it ("Ausdruck"), and field 5
 * Basis-Umsatz: https://developer.datev.de/datev/platform/de/dtvf/formate/buchungsstapel.
 */
export const DOCUMENTED_KURS = /^([1-9]\d{0,3}[,]\d{2,6})$/;
const DOCUMENTED_BASIS_UMSATZ = /^(?!0{1,10},00)\d{1,10},\d{2}$/;

/** Reads a Buchungsstapel's bytes; throws on the first rule of the format it breaks. */
export function readDatevBuchungsstapel(bytes: Uint8Array, options: DatevReadOptions = {}): DatevFile {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    throw new Error('a UTF-8 BOM: not Windows-1252');
  const text = decodeWindows1252(bytes);
  const records = readDelimited(text, ';');
  const [headerRecord, columnRecord, ...rows] = records;
  if (!headerRecord || !columnRecord) throw new Error('fewer than two lines');
  const header = readHeader(headerRecord);
  const columns = columnRecord.map((field) => field.value);
  if (columns.length !== BOOKING_COLUMNS)
    throw new Error(`line 2: ${columns.length} columns, not ${BOOKING_COLUMNS}`);
  DOCUMENTED_FIRST_COLUMNS.forEach((name, i) => {
    if (columns[i] !== name)
      throw new Error(`line 2: column ${i + 1} is ${JSON.stringify(columns[i])}, not ${name}`);
  });
  const base = options.baseCurrency ?? 'EUR';
  const bookings = rows.map((row, i) => readBooking(row, columns, i + 3, base));
  return { text, header, columns, bookings };
}

function readHeader(fields: Field[]): DatevHeader {
  if (fields.length !== HEADER_FIELDS)
    throw new Error(`line 1: ${fields.length} fields, not ${HEADER_FIELDS}`);
  const at = (position: number, pattern: RegExp, quoted: boolean): string => {
    const field = fields[position - 1] as Field;
    if (field.quoted !== quoted)
      throw new Error(
        `line 1 field ${position}: ${quoted ? 'text must be quoted' : 'a number must not be quoted'}`,
      );
    if (!pattern.test(field.value))
      throw new Error(`line 1 field ${position}: ${JSON.stringify(field.value)} does not match ${pattern}`);
    return field.value;
  };
  return {
    kennzeichen: at(1, /^(EXTF|DTVF)$/, true),
    versionsnummer: at(2, /^700$/, false),
    formatkategorie: at(3, /^21$/, false),
    formatname: at(4, /^Buchungsstapel$/, true),
    formatversion: at(5, /^13$/, false),
    erzeugtAm: at(6, /^\d{17}$/, false),
    beraternummer: at(11, /^\d{4,7}$/, false),
    mandantennummer: at(12, /^\d{1,5}$/, false),
    wjBeginn: at(13, /^\d{8}$/, false),
    sachkontenlaenge: at(14, /^[4-8]$/, false),
    datumVom: at(15, /^\d{8}$/, false),
    datumBis: at(16, /^\d{8}$/, false),
    bezeichnung: at(17, /^.{0,30}$/, true),
    festschreibung: at(21, /^[01]$/, false),
    wkz: at(22, /^[A-Z]{3}$/, true),
    sachkontenrahmen: at(27, /^(\d{2})?$/, true),
    fieldCount: fields.length,
  };
}

function readBooking(fields: Field[], columns: string[], line: number, base: string): DatevBooking {
  if (fields.length !== columns.length)
    throw new Error(`line ${line}: ${fields.length} fields, not ${columns.length}`);
  const byName = new Map(columns.map((name, i) => [name, (fields[i] as Field).value]));
  const get = (name: string, pattern: RegExp, quoted: boolean): string => {
    const field = fields[columns.indexOf(name)] as Field;
    if (field.quoted !== quoted)
      throw new Error(`line ${line} ${name}: ${quoted ? 'text must be quoted' : 'must not be quoted'}`);
    if (!pattern.test(field.value))
      throw new Error(`line ${line} ${name}: ${JSON.stringify(field.value)} does not match ${pattern}`);
    return field.value;
  };
  for (const [i, field] of fields.entries()) {
    if (/\p{Cc}/u.test(field.value))
      throw new Error(`line ${line} ${columns[i]}: a control character in a field`);
  }
  const belegdatum = get('Belegdatum', /^(0[1-9]|[12]\d|3[01])(0[1-9]|1[0-2])$/, false);
  // Fields 4–6: "Wenn ein Umsatz in der Fremdwährung bei #1 angegeben wird, sind #4, #5 und #6 zu
  // übergeben"; "Der Fremdwährungskurs (WKZ-Umsatz : WKZ-Basisumsatz) bestimmt, wie der
  // angegebene Umsatz … in die Basiswährung umzurechnen ist"; "Der Wert 0 ist unzulässig".
  const wkzUmsatz = get('WKZ Umsatz', /^[A-Z]{3}$/, true);
  const foreign = wkzUmsatz !== base;
  const empty = (name: string): string => {
    if (byName.get(name) !== '')
      throw new Error(`line ${line} ${name}: only an amount in a foreign currency has it`);
    return '';
  };
  const umsatz = get('Umsatz (ohne Soll/Haben-Kz)', /^\d{1,10},\d{2}$/, false).replace(',', '.');
  const kurs = foreign ? get('Kurs', DOCUMENTED_KURS, false).replace(',', '.') : empty('Kurs');
  const basisUmsatz = foreign
    ? get('Basis-Umsatz', DOCUMENTED_BASIS_UMSATZ, false).replace(',', '.')
    : empty('Basis-Umsatz');
  const wkzBasisUmsatz = foreign
    ? get('WKZ Basis-Umsatz', new RegExp(`^${base}$`), true)
    : empty('WKZ Basis-Umsatz');
  // Umsatz : Basis-Umsatz = Kurs, to the cent: the Basis-Umsatz lies within half a cent of
  // Umsatz ÷ Kurs.
  if (foreign && new Big(umsatz).div(kurs).minus(basisUmsatz).abs().gt('0.005'))
    throw new Error(`line ${line} Basis-Umsatz: ${basisUmsatz} is not ${umsatz} ÷ Kurs ${kurs} to the cent`);
  return {
    kurs,
    basisUmsatz,
    wkzBasisUmsatz,
    line,
    umsatz,
    sollHaben: get('Soll/Haben-Kennzeichen', /^[SH]$/, true) as 'S' | 'H',
    wkzUmsatz,
    konto: get('Konto', /^\d{1,9}$/, false),
    gegenkonto: get('Gegenkonto (ohne BU-Schlüssel)', /^\d{1,9}$/, false),
    belegdatum,
    belegfeld1: get('Belegfeld 1', /^[\w$%\-/]{0,36}$/, true),
    buchungstext: get('Buchungstext', /^.{0,60}$/u, true),
    byName,
  };
}

/**
 * A Buchungsstapel's file name as DATEV's import takes it: beginning with `EXTF_` (a file made
 * outside DATEV, as header field 1), ending `.csv`.
 */
export function checkDatevFileName(name: string): void {
  if (!/^EXTF_[^/\\]*\.csv$/.test(name))
    throw new Error(`file name ${JSON.stringify(name)} does not begin with EXTF_`);
}
