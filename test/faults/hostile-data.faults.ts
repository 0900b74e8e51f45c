/**
 * Hostile data from the service: the simulator's `hostile` profile sends formula text, every
 * control character, 40,000-character strings, emoji, bidi overrides, lone surrogates, 30-digit
 * amounts, exponents, negative zero and hostile extra field names. The export writes CSV and XLSX;
 * every value must read back exactly (or by the documented rule), no formula may reach a sheet,
 * and LibreOffice must open both files and read the same values.
 *
 * Documented rules the expectations follow:
 * - CSV: text exactly as sent, a leading `'` added to text starting (after any quotes) with
 *   = + - @ tab or CR; lone surrogates become U+FFFD (UTF-8 cannot hold them); decimals are plain
 *   literals (exponents expanded, `-0` written `0`) equal to the source as numbers.
 * - XLSX: text exactly as sent (controls and CR kept via OOXML `_xHHHH_` escapes), lone surrogates
 *   U+FFFD, text over 32,767 characters cut with a `…[N more characters cut: …]` marker; numbers
 *   equal to the source where 15 digits hold it, otherwise the `(exact)` companion holds the digits
 *   (or the cell holds the exact text when no spreadsheet number can).
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';

import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column } from '../../lib/domain/index.ts';
import {
  changeColumns,
  movementColumns,
  parseExportRequest,
  readSnapshotRecords,
  runExport,
  transactionColumns,
} from '../../lib/export/index.ts';
import {
  HOSTILE_AMOUNTS,
  HOSTILE_EXTRA_KEYS,
  HOSTILE_LONG_LENGTH,
  HOSTILE_TEXTS,
  HOSTILE_VALUES,
} from '../../lib/simulator/data.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE } from '../../lib/simulator/profiles.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { Tally } from './support/fuzz.ts';
import {
  CSV_EXPORT,
  CSV_EXPORT_ALL_SHEETS,
  convertToCsv,
  csvImportAsText,
  csvRecords,
  SOFFICE_TIMEOUT_MS,
} from './support/libreoffice.ts';

// ---------------------------------------------------------------------------------------------
// The documented rules, written out independently of the writers
// ---------------------------------------------------------------------------------------------

const EXCEL_CELL_LIMIT = 32_767;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const CUT = /…\[(\d+) more characters cut: a spreadsheet cell holds at most 32767\]$/;
const DECIMAL_LITERAL = /^-?\d+(\.\d+)?$/;
/** A CSV text cell a spreadsheet would evaluate: starts with = + - @ tab or CR. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** Lone surrogates as U+FFFD: what UTF-8 files (and so both formats) can hold. */
const wellFormed = (text: string) => text.replace(LONE_SURROGATE, '\ufffd');
/** The CSV guard undone: one leading `'` before (further quotes and) a formula character. */
const unguard = (cell: string) => cell.replace(/^'(?='*[=+\-@\t\r])/, '');

/** The CSV guard: a leading `'` on text starting (after any quotes) with = + - @ tab or CR. */
const guard = (text: string) => (/^'*[=+\-@\t\r]/.test(text) ? `'${text}` : text);

/**
 * How a reader shows text it cannot hold as sent. Our own readers (csv-parse, exceljs) hold
 * everything: identity. LibreOffice (7.4) has limits of its own, applied to the expected value.
 */
type View = (text: string) => string;
const exactly: View = (text) => text;
/** LibreOffice keeps no CR in a cell (CR and CRLF become LF) and drops NUL when importing CSV. */
const libreOfficeCsv: View = (text) => text.replace(/\r\n?/g, '\n').replaceAll('\u0000', '');
/**
 * LibreOffice splits a cell holding a line feed into lines, so there CR and CRLF become LF too (a
 * CR alone in a one-line cell stays), and it does not decode the `_x007F_` escape of DEL.
 */
const libreOfficeXlsx: View = (text) =>
  (text.includes('\n') ? text.replace(/\r\n?/g, '\n') : text).replaceAll('\u007f', '_x007F_');

/** The CSV cell a text value must be read back as: guarded, then as the reader shows it. */
const csvCellOf = (value: string | null, view: View) => view(guard(wellFormed(value ?? '')));

/** Whether a sheet's text reads back as `value`: equal, or cut to the cell limit with the marker. */
function sheetTextMatches(text: string, value: string | null, view: View): boolean {
  const expected = wellFormed(value ?? '');
  if (expected.length <= EXCEL_CELL_LIMIT) return text === view(expected);
  const cut = CUT.exec(text);
  if (cut === null || text.length > EXCEL_CELL_LIMIT) return false;
  const kept = expected.length - Number(cut[1]);
  return text === view(`${expected.slice(0, kept)}${cut[0]}`) && kept >= EXCEL_CELL_LIMIT - cut[0].length - 2;
}

/** Whether a plain decimal literal equals the source amount (exponents, `-0`, scale aside). */
function decimalMatches(cell: string, value: string | null): boolean {
  if (value === null) return cell === '';
  return DECIMAL_LITERAL.test(cell) && new Big(cell).eq(new Big(value));
}

/** Whether a spreadsheet number holds `value` to Excel's 15 significant digits. */
function numberMatches15(cell: number, value: string): boolean {
  return new Big(String(cell)).prec(15).eq(new Big(value).prec(15));
}

/** Whether 15 significant digits hold `value` exactly (so no `(exact)` companion is needed). */
function fitsNumber(value: string): boolean {
  const number = Number(new Big(value).toFixed());
  return (
    Number.isFinite(number) && new Big(value).c.length <= 15 && new Big(String(number)).eq(new Big(value))
  );
}

// ---------------------------------------------------------------------------------------------
// What each row of each report must hold, from the raw transactions of the snapshot
// ---------------------------------------------------------------------------------------------

type Kind = 'text' | 'decimal' | 'exact';
/** One value a report row must hold: its column key and header, its kind and the source value. */
interface Expected {
  key: string;
  header: string;
  kind: Kind;
  value: string | null;
}
type Raw = Record<string, unknown>;

/** The extra-column path of a key (the documented naming rule: odd keys as quoted indexes). */
function pathOf(prefix: string, key: string): string {
  if (key === '' || /[.[\]"]/.test(key)) return `${prefix}[${JSON.stringify(key)}]`;
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** Every leaf of `value` outside `known`, by extra-column path. */
function leaves(value: Raw, known: ReadonlySet<string>, prefix = '', out = new Map<string, string>()) {
  for (const [key, child] of Object.entries(value)) {
    const path = pathOf(prefix, key);
    if (known.has(path)) continue;
    if (
      child !== null &&
      typeof child === 'object' &&
      !Array.isArray(child) &&
      Object.keys(child).length > 0
    ) {
      leaves(child as Raw, known, path, out);
    } else out.set(path, typeof child === 'string' ? child : JSON.stringify(child));
  }
  return out;
}

const TX_KNOWN = new Set([
  'id',
  'date',
  'type',
  'subType',
  'category',
  'protocol',
  'hash',
  'accountId',
  'ledgerId',
  'movements',
  'value.amount',
  'value.currency',
  'fee.amount',
  'fee.currency',
  'fee.symbol',
  'fee.quantity',
  'lastModifiedDate',
  'source.sourceGuid',
  'source.name',
  'deleted',
]);
const MOVEMENT_KNOWN = new Set(['symbol', 'amount', 'value']);

const str = (value: unknown) => (value === undefined || value === null ? null : String(value));
const at = (raw: Raw, path: string) =>
  path.split('.').reduce<unknown>((node, key) => (node as Raw | null | undefined)?.[key], raw);

function headerOf(columns: Column[], key: string): string {
  return columns.find((column) => column.key === key)?.header ?? key;
}

function transactionExpectations(raw: Raw): Expected[] {
  const columns = transactionColumns('UTC');
  const fixed: [string, Kind, unknown][] = [
    ['id', 'text', raw.id],
    ['type', 'text', raw.type],
    ['sub_type', 'text', raw.subType],
    ['category', 'text', raw.category],
    ['protocol', 'text', raw.protocol],
    ['hash', 'text', raw.hash],
    ['account_id', 'text', raw.accountId],
    ['ledger_id', 'text', raw.ledgerId],
    ['value_amount', 'decimal', at(raw, 'value.amount')],
    ['value_currency', 'text', at(raw, 'value.currency')],
    ['fee_amount', 'decimal', at(raw, 'fee.amount')],
    ['fee_currency', 'text', at(raw, 'fee.currency')],
    ['fee_symbol', 'text', at(raw, 'fee.symbol')],
    ['fee_quantity', 'exact', at(raw, 'fee.quantity')],
  ];
  return [
    ...fixed.map(([key, kind, value]) => ({ key, header: headerOf(columns, key), kind, value: str(value) })),
    ...[...leaves(raw, TX_KNOWN)].map(([path, value]) => ({
      key: path,
      header: path,
      kind: 'text' as const,
      value,
    })),
  ];
}

function movementExpectations(raw: Raw): Expected[][] {
  const columns = movementColumns('UTC');
  return (raw.movements as Raw[]).map((movement) => [
    { key: 'transaction_id', header: headerOf(columns, 'transaction_id'), kind: 'text', value: str(raw.id) },
    { key: 'token', header: headerOf(columns, 'token'), kind: 'text', value: str(movement.symbol) },
    { key: 'amount', header: headerOf(columns, 'amount'), kind: 'exact', value: str(movement.amount) },
    { key: 'value', header: headerOf(columns, 'value'), kind: 'decimal', value: str(movement.value) },
    ...[...leaves(movement, MOVEMENT_KNOWN)].map(([path, value]) => ({
      key: path,
      header: path,
      kind: 'text' as const,
      value,
    })),
  ]);
}

function changeExpectations(raw: Raw): Expected[] {
  const columns = changeColumns('UTC');
  const fixed: [string, Kind, unknown][] = [
    ['id', 'text', raw.id],
    ['source_name', 'text', at(raw, 'source.name')],
    ['type', 'text', raw.type],
    ['sub_type', 'text', raw.subType],
    ['category', 'text', raw.category],
    ['protocol', 'text', raw.protocol],
    ['hash', 'text', raw.hash],
    ['value_amount', 'decimal', at(raw, 'value.amount')],
    ['value_currency', 'text', at(raw, 'value.currency')],
  ];
  return [
    ...fixed.map(([key, kind, value]) => ({ key, header: headerOf(columns, key), kind, value: str(value) })),
    ...[...leaves(raw, TX_KNOWN)].map(([path, value]) => ({
      key: path,
      header: path,
      kind: 'text' as const,
      value,
    })),
  ];
}

// ---------------------------------------------------------------------------------------------
// Reading the files back
// ---------------------------------------------------------------------------------------------

/** A table read back: header row and data rows, cells as the reader gives them. */
interface ReadTable<T> {
  header: string[];
  rows: T[][];
}

function csvTable(text: string): ReadTable<string> {
  const records = parse(text, { bom: true, relax_column_count: false }) as string[][];
  return { header: records[0] ?? [], rows: records.slice(1) };
}

type SheetCell = string | number | null;

/** A sheet's cells: strings (rich text joined), numbers, null; formulas kept as `{formula}`. */
function sheetTable(sheet: ExcelJS.Worksheet): ReadTable<SheetCell> & { formulas: number } {
  let formulas = 0;
  const rows: SheetCell[][] = [];
  sheet.eachRow({ includeEmpty: true }, (row) => {
    const cells: SheetCell[] = [];
    for (let c = 1; c <= sheet.columnCount; c += 1) {
      const cell = row.getCell(c);
      if (cell.type === ExcelJS.ValueType.Formula || cell.formula !== undefined) formulas += 1;
      const value = cell.value as unknown;
      if (value === null || value === undefined) cells.push(null);
      else if (typeof value === 'string' || typeof value === 'number') cells.push(value);
      else if (value instanceof Date) cells.push(value.toISOString());
      else if (typeof value === 'object' && 'richText' in value) {
        cells.push((value as { richText: { text: string }[] }).richText.map((run) => run.text).join(''));
      } else {
        formulas += 1;
        cells.push(JSON.stringify(value));
      }
    }
    rows.push(cells);
  });
  const [header, ...data] = rows;
  return { header: (header ?? []).map((cell) => String(cell ?? '')), rows: data, formulas };
}

/** Counts checks of one format and keeps the first mismatches for the failure message. */
class Checks {
  values = 0;
  exact = 0;
  formulas = 0;
  readonly mismatches: string[] = [];

  check(ok: boolean, what: () => string): void {
    this.values += 1;
    if (ok) this.exact += 1;
    else if (this.mismatches.length < 12) this.mismatches.push(what());
  }

  record(name: string): void {
    const tally = new Tally('hostileData', name);
    tally.add('values', this.values);
    tally.add('readBackExactly', this.exact);
    tally.add('formulas', this.formulas);
    tally.record();
  }
}

const show = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'undefined';
  return text.length > 120 ? `${text.slice(0, 120)}…(${text.length})` : text;
};

/** Checks the CSV rows of one report against the expectations, rows matched by id. */
function checkCsvRows(
  checks: Checks,
  file: string,
  table: ReadTable<string>,
  expected: Expected[][],
  idKey: string,
  view: View = exactly,
): void {
  const index = new Map(table.header.map((key, i) => [unguard(key), i]));
  const idColumn = index.get(idKey) ?? -1;
  const byId = new Map<string, string[][]>();
  for (const row of table.rows) {
    const id = row[idColumn] ?? '';
    byId.set(id, [...(byId.get(id) ?? []), row]);
  }
  const seen = new Map<string, number>();
  checks.check(
    table.rows.length === expected.length,
    () => `${file}: ${table.rows.length} rows, expected ${expected.length}`,
  );
  for (const cells of expected) {
    const id = csvCellOf(cells.find((cell) => cell.key === idKey)?.value ?? '', view);
    const nth = seen.get(id) ?? 0;
    seen.set(id, nth + 1);
    const row = byId.get(id)?.[nth];
    for (const cell of cells) {
      const column = index.get(cell.key);
      const read = row !== undefined && column !== undefined ? (row[column] ?? '') : undefined;
      const ok =
        read !== undefined &&
        (cell.kind === 'text' ? read === csvCellOf(cell.value, view) : decimalMatches(read, cell.value));
      checks.check(
        ok,
        () => `${file} ${show(id)} ${show(cell.key)}: read ${show(read)}, sent ${show(cell.value)}`,
      );
    }
  }
}

/** Checks the sheet rows of one report; numbers by the 15-digit rule and the `(exact)` companion. */
function checkSheetRows(
  checks: Checks,
  sheet: string,
  table: ReadTable<SheetCell>,
  expected: Expected[][],
  idHeader: string,
  view: View = exactly,
): void {
  const index = new Map(table.header.map((header, i) => [header, i]));
  const idColumn = index.get(idHeader) ?? -1;
  const byId = new Map<string, SheetCell[][]>();
  for (const row of table.rows) {
    const id = String(row[idColumn] ?? '');
    byId.set(id, [...(byId.get(id) ?? []), row]);
  }
  const seen = new Map<string, number>();
  checks.check(
    table.rows.length === expected.length,
    () => `${sheet}: ${table.rows.length} rows, expected ${expected.length}`,
  );
  for (const cells of expected) {
    const id = view(wellFormed(cells.find((cell) => cell.header === idHeader)?.value ?? ''));
    const nth = seen.get(id) ?? 0;
    seen.set(id, nth + 1);
    const row = byId.get(id)?.[nth];
    for (const cell of cells) {
      const column = index.get(cell.header);
      const read = row !== undefined && column !== undefined ? (row[column] ?? null) : undefined;
      const companionColumn = index.get(`${cell.header} (exact)`);
      const companion = row !== undefined && companionColumn !== undefined ? row[companionColumn] : undefined;
      checks.check(
        sheetCellMatches(cell, read, companion, view),
        () =>
          `${sheet} ${show(id)} ${show(cell.header)}: read ${show(read)} / ${show(companion)}, sent ${show(cell.value)}`,
      );
    }
  }
}

/**
 * The rule for one sheet cell (`companion` is the `(exact)` column's cell, if the column has one).
 * A number the companion completes is a display value: equal to 15 digits in a sheet, to 7 in
 * LibreOffice's CSV of it (which prints at most 20 decimals).
 */
function sheetCellMatches(
  cell: Expected,
  given: SheetCell | undefined,
  companion: SheetCell | undefined,
  view: View,
): boolean {
  let read = given;
  if (read === undefined) return false;
  if (cell.kind === 'text') {
    return sheetTextMatches(
      typeof read === 'string' ? read : read === null ? '' : String(read),
      cell.value,
      view,
    );
  }
  if (cell.value === null) return read === null || read === '';
  const printed = typeof read === 'string';
  if (typeof read === 'string') {
    // Text where no spreadsheet number can hold the amount: the exact decimal.
    if (DECIMAL_LITERAL.test(read) && new Big(read).eq(new Big(cell.value))) return true;
    // LibreOffice's CSV gives numbers as text (`1E-07`).
    if (!/^-?\d+(\.\d+)?(E[+-]?\d+)?$/i.test(read)) return false;
    read = Number(read);
  }
  if (typeof read !== 'number') return false;
  if (fitsNumber(cell.value)) {
    return (
      new Big(String(read)).eq(new Big(cell.value)) &&
      (companion === undefined || companion === null || companion === '')
    );
  }
  if (cell.kind === 'decimal') return false;
  const display = printed
    ? new Big(String(read)).minus(cell.value).abs().lte(new Big(cell.value).abs().times('1e-7'))
    : numberMatches15(read, cell.value);
  return (
    display &&
    typeof companion === 'string' &&
    DECIMAL_LITERAL.test(companion) &&
    new Big(companion).eq(new Big(cell.value))
  );
}

/** Counts CSV text cells a spreadsheet would evaluate (numeric cells such as `-1.25` excepted). */
function csvFormulaCells(table: ReadTable<string>): string[] {
  return [table.header, ...table.rows]
    .flat()
    .filter((cell) => FORMULA_START.test(cell) && !DECIMAL_LITERAL.test(cell));
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

describe('an export of hostile data from the service', () => {
  let harness: ExportHarness;
  let folder = '';
  let files: string[] = [];
  const transactions: Raw[] = [];
  const changes: Raw[] = [];

  beforeAll(async () => {
    harness = await startExportHarness('hostile', {
      profiles: [...DEFAULT_PROFILES.map((profile) => ({ ...profile })), { ...HOSTILE_PROFILE }],
    });
    const request = parseExportRequest({
      profile: 'hostile',
      period: { from: '2023-01-01', to: '2025-12-31' },
      window: 'year',
      reports: ['transactions', 'movements', 'summary', 'changes'],
      changesSince: '2023-01-01',
    });
    const result = await runExport(request, harness.deps());
    folder = join(harness.outDir, result.prefix);
    files = await readdir(folder);
    const snapshot = files.find((name) => name.endsWith('_snapshot.ndjson.gz')) as string;
    for await (const record of readSnapshotRecords(join(folder, snapshot))) {
      (record.kind === 'transaction' ? transactions : changes).push(record.data as Raw);
    }
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  const file = (suffix: string) => join(folder, files.find((name) => name.endsWith(suffix)) as string);

  it('serves every hostile text, amount and extra key in the transactions it exports', () => {
    const texts = new Set<string>();
    const collect = (value: unknown): void => {
      if (typeof value === 'string') texts.add(value);
      else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
    };
    collect(transactions);
    const keys = new Set(transactions.flatMap((tx) => Object.keys(tx)));
    expect({
      texts: HOSTILE_TEXTS.filter((text) => !texts.has(text)).map(show),
      amounts: [...HOSTILE_AMOUNTS, ...HOSTILE_VALUES].filter((amount) => !texts.has(amount)),
      keys: HOSTILE_EXTRA_KEYS.filter((key) => !keys.has(key)),
      longest: Math.max(...[...texts].map((text) => text.length)),
    }).toEqual({ texts: [], amounts: [], keys: [], longest: HOSTILE_LONG_LENGTH });
  });

  it('writes CSV files whose every value reads back exactly, with no text cell a spreadsheet would evaluate', async () => {
    const checks = new Checks();
    const read = async (suffix: string) => csvTable(await readFile(file(suffix), 'utf8'));
    const tables = {
      transactions: await read('_transactions.csv'),
      movements: await read('_movements.csv'),
      changes: await read('_changes.csv'),
    };
    checkCsvRows(
      checks,
      'transactions.csv',
      tables.transactions,
      transactions.map(transactionExpectations),
      'id',
    );
    checkCsvRows(
      checks,
      'movements.csv',
      tables.movements,
      transactions.flatMap(movementExpectations),
      'transaction_id',
    );
    checkCsvRows(checks, 'changes.csv', tables.changes, changes.map(changeExpectations), 'id');
    const formulaCells: string[] = [];
    for (const name of files.filter((n) => n.endsWith('.csv'))) {
      formulaCells.push(...csvFormulaCells(csvTable(await readFile(join(folder, name), 'utf8'))));
    }
    checks.formulas = formulaCells.length;
    checks.record('CSV (csv-parse)');
    expect({ mismatches: checks.mismatches, formulas: formulaCells.map(show) }).toEqual({
      mismatches: [],
      formulas: [],
    });
    expect(checks.values).toBeGreaterThan(1_000);
  });

  it('writes a workbook without formula cells whose every value reads back exactly or by the documented rule', async () => {
    const checks = new Checks();
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(file('.xlsx'));
    const sheets = new Map(workbook.worksheets.map((sheet) => [sheet.name, sheetTable(sheet)]));
    const sheet = (name: string) => sheets.get(name) ?? { header: [], rows: [], formulas: 0 };
    checkSheetRows(
      checks,
      'Transactions',
      sheet('Transactions'),
      transactions.map(transactionExpectations),
      'ID',
    );
    checkSheetRows(
      checks,
      'Movements',
      sheet('Movements'),
      transactions.flatMap(movementExpectations),
      'Transaction ID',
    );
    checkSheetRows(checks, 'Changes', sheet('Changes'), changes.map(changeExpectations), 'ID');
    checks.formulas = [...sheets.values()].reduce((sum, table) => sum + table.formulas, 0);
    checks.record('XLSX (exceljs)');
    expect({ mismatches: checks.mismatches, formulas: checks.formulas, sheets: [...sheets.keys()] }).toEqual({
      mismatches: [],
      formulas: 0,
      sheets: expect.arrayContaining(['Transactions', 'Movements', 'Changes']),
    });
  });

  describe('opened in LibreOffice', () => {
    // Above the conversion's own limit (SOFFICE_TIMEOUT_MS): a slow office start under load is
    // not a failure of the files; a hung one is ended by that limit, with its output.
    const LIBREOFFICE_TEST_MS = SOFFICE_TIMEOUT_MS + 60_000;
    let profileDir = '';
    beforeAll(async () => {
      profileDir = join(harness.outDir, 'lo-profile');
      await mkdir(profileDir, { recursive: true });
    });

    it('reads the workbook with the same values as the source, no formula evaluated', {
      timeout: LIBREOFFICE_TEST_MS,
    }, async () => {
      const checks = new Checks();
      const converted = await convertToCsv(file('.xlsx'), join(harness.outDir, 'lo-xlsx'), profileDir, {
        export: CSV_EXPORT_ALL_SHEETS,
      });
      const sheetCsv = (title: string): ReadTable<SheetCell> => {
        const entry = [...converted].find(([name]) => name.endsWith(`-${title}.csv`));
        const records = csvRecords(entry?.[1] ?? '');
        return { header: records[0] ?? [], rows: records.slice(1).map((row) => row.map(loCell)) };
      };
      checkSheetRows(
        checks,
        'LO Transactions',
        sheetCsv('Transactions'),
        transactions.map(transactionExpectations),
        'ID',
        libreOfficeXlsx,
      );
      checkSheetRows(
        checks,
        'LO Movements',
        sheetCsv('Movements'),
        transactions.flatMap(movementExpectations),
        'Transaction ID',
        libreOfficeXlsx,
      );
      checkSheetRows(
        checks,
        'LO Changes',
        sheetCsv('Changes'),
        changes.map(changeExpectations),
        'ID',
        libreOfficeXlsx,
      );
      checks.formulas = checks.mismatches.filter((line) => /sent "[=+\-@]/.test(line)).length;
      checks.record('XLSX in LibreOffice');
      expect({ mismatches: checks.mismatches, sheets: converted.size }).toEqual({
        mismatches: [],
        sheets: expect.any(Number),
      });
    });

    it('reads the CSV files, every column as text, with the same values as the source', {
      timeout: LIBREOFFICE_TEST_MS,
    }, async () => {
      const checks = new Checks();
      const outdir = join(harness.outDir, 'lo-csv');
      const names = ['_transactions.csv', '_movements.csv', '_changes.csv'].map(file);
      const converted = new Map<string, string>();
      for (const [name, text] of await convertToCsv(names, outdir, profileDir, {
        import: csvImportAsText(120),
        export: CSV_EXPORT,
      })) {
        converted.set(name, text);
      }
      const table = (suffix: string) => {
        const entry = [...converted].find(([name]) => name.endsWith(suffix));
        const records = csvRecords(entry?.[1] ?? '');
        return { header: records[0] ?? [], rows: records.slice(1) };
      };
      checkCsvRows(
        checks,
        'LO transactions.csv',
        table('_transactions.csv'),
        transactions.map(transactionExpectations),
        'id',
        libreOfficeCsv,
      );
      checkCsvRows(
        checks,
        'LO movements.csv',
        table('_movements.csv'),
        transactions.flatMap(movementExpectations),
        'transaction_id',
        libreOfficeCsv,
      );
      checkCsvRows(
        checks,
        'LO changes.csv',
        table('_changes.csv'),
        changes.map(changeExpectations),
        'id',
        libreOfficeCsv,
      );
      checks.formulas = [...converted.values()].flatMap((text) => csvFormulaCells(csvTable(text))).length;
      checks.record('CSV in LibreOffice');
      expect({ mismatches: checks.mismatches, formulas: checks.formulas }).toEqual({
        mismatches: [],
        formulas: 0,
      });
    });

    it('evaluates no guarded CSV cell when LibreOffice opens the CSV with formula evaluation on', {
      timeout: LIBREOFFICE_TEST_MS,
    }, async () => {
      const checks = new Checks();
      const outdir = join(harness.outDir, 'lo-formulas');
      await mkdir(outdir, { recursive: true });
      // A control file: the same text unguarded must evaluate, or this test could not fail.
      const control = join(outdir, 'control-in.csv');
      await writeFile(control, "=1+2,'=1+2,@SUM(1+1),'@SUM(1+1)\r\n");
      const transactionsCsv = file('_transactions.csv');
      const converted = await convertToCsv([control, transactionsCsv], join(outdir, 'out'), profileDir, {
        import: EVALUATING_IMPORT,
        export: CSV_EXPORT,
      });
      const records = (suffix: string) =>
        csvRecords([...converted].find(([name]) => name.endsWith(suffix))?.[1] ?? '');
      const [controlRow] = records('control-in.csv');
      const ours = csvTable(await readFile(transactionsCsv, 'utf8'));
      const theirs = records('_transactions.csv');
      // Every guarded cell of ours must come back as text: with its guard, or without it.
      ours.rows.forEach((row, r) => {
        row.forEach((cell, c) => {
          if (!cell.startsWith("'")) return;
          const shown = theirs[r + 1]?.[c];
          const asText = shown === cell || shown === unguard(cell) || shown === libreOfficeCsv(cell);
          checks.check(asText, () => `row ${r + 1} column ${c}: ${show(cell)} came back as ${show(shown)}`);
          if (!asText) checks.formulas += 1;
        });
      });
      checks.record('CSV in LibreOffice, formulas evaluated');
      expect({ control: controlRow?.[0], mismatches: checks.mismatches }).toEqual({
        control: '3',
        mismatches: [],
      });
      expect(checks.values).toBeGreaterThan(100);
    });
  });
});

/** CSV import with number detection and formula evaluation on (token 13): a hostile spreadsheet. */
const EVALUATING_IMPORT = 'CSV:44,34,76,1,,0,false,true,false,false,false,,true';

/** A cell of LibreOffice's CSV of a sheet: text as is (numbers are read by the rule), empty as null. */
function loCell(text: string): SheetCell {
  return text === '' ? null : text;
}
