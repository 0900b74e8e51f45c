import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Big from 'big.js';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Column, Row, TableSource } from '../../lib/domain/index.ts';
import { writeCsv, writeXlsx } from '../../lib/export/report/index.ts';
import { parseCsv } from '../support/writers.ts';

const run = promisify(execFile);

const columns: Column[] = [
  { key: 'note', header: 'Note', kind: 'text' },
  { key: 'amount', header: 'Amount', kind: 'decimal' },
  { key: 'quantity', header: 'Quantity', kind: 'decimal', exact: true },
  { key: 'count', header: 'Count', kind: 'integer' },
  { key: 'at', header: 'At', kind: 'datetime', timeZone: 'Europe/Berlin' },
];
const rows: Row[] = [
  ['=1+2', '-1.25', '0.123456789012345678', '3', '2025-01-14T09:26:53.000Z'],
  ['+SUM(A1:A2)', '1234567.89', '-12345678901.000000000000000001', '-7', '2025-07-14T09:26:53.000Z'],
  ['-2+3', '0.000000000000000001', '1.500000000000000000', '0', '2025-10-26T03:30:00.000Z'],
  ['@cmd', '-0.50', '123456789012345678', '12', '2025-03-30T01:30:00.000Z'],
  ['=HYPERLINK("http://evil.example","click")', '10', '42', '1', '2025-12-31T23:59:59.000Z'],
  [
    'Zürich — 東京 🚀 "quoted", comma\nsecond line',
    '0',
    '-0.000000000000000123',
    '100',
    '2025-06-01T00:00:00.000Z',
  ],
  ['\tTAB', '5', '5', '5', '2025-02-01T12:00:00.000Z'],
  ['  padded  ', null, null, null, null],
];
const source: TableSource = {
  spec: { name: 'tricky', title: 'Tricky', columns },
  async *rows() {
    yield* rows;
  },
};

/** Field separator 44 (`,`), text delimiter 34 (`"`), charset 76 (UTF-8), start at line 1. */
const CSV_IMPORT = 'CSV:44,34,76,1';
/** Same, plus token 9 "save cell contents as shown" (false: raw values, true: formatted). */
const csvExport = (asShown: boolean) =>
  `csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,${asShown},false,false`;

let dir = '';

/** Converts `file` with headless LibreOffice and returns the resulting CSV's records. */
async function convert(file: string, filter: string, infilter?: string): Promise<string[][]> {
  const outdir = join(dir, `out-${Math.random().toString(36).slice(2)}`);
  await mkdir(outdir);
  const profile = pathToFileURL(join(dir, 'profile')).href;
  await run('soffice', [
    `-env:UserInstallation=${profile}`,
    '--headless',
    ...(infilter ? [`--infilter=${infilter}`] : []),
    '--convert-to',
    filter,
    '--outdir',
    outdir,
    file,
  ]);
  const text = await readFile(join(outdir, basename(file).replace(/\.\w+$/, '.csv')), 'utf8');
  return parseCsv(text.replace(/^\ufeff/, ''));
}

async function write(name: string, writer: (out: Writable) => Promise<unknown>): Promise<string> {
  const file = join(dir, name);
  const out = createWriteStream(file);
  const finished = new Promise<void>((resolve, reject) => {
    out.on('close', () => resolve());
    out.on('error', reject);
  });
  await writer(out);
  await finished;
  return file;
}

/** The column of `records` (header row dropped) at `index`. */
const column = (records: string[][], index: number) => records.slice(1).map((record) => record[index] ?? '');
/** Source cells of column `index` as LibreOffice shows them when empty. */
const sourceColumn = (index: number) => rows.map((row) => row[index] ?? '');
/** LibreOffice keeps 15 significant digits of a number. */
const as15Digits = (decimal: string) => (decimal === '' ? '' : new Big(decimal).prec(15).toFixed());
const asBig = (shown: string) => (shown === '' ? '' : new Big(shown).toFixed());

describe('LibreOffice reading the XLSX writer output', () => {
  let raw: string[][] = [];
  let shown: string[][] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-interop-'));
    const xlsx = await write('tricky.xlsx', (out) => writeXlsx([source], out));
    raw = await convert(xlsx, csvExport(false));
    shown = await convert(xlsx, csvExport(true));
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('returns the headers with the exact companion column after Quantity', () => {
    expect(raw[0]).toEqual(['Note', 'Amount', 'Quantity', 'Quantity (exact)', 'Count', 'At']);
  });

  it('returns text cells verbatim, formula-like text not evaluated', () => {
    expect(column(raw, 0)).toEqual(sourceColumn(0));
  });

  it('returns decimal cells as numbers equal to the source to 15 significant digits', () => {
    expect([column(raw, 1).map(asBig), column(raw, 2).map(asBig)]).toEqual([
      sourceColumn(1).map(as15Digits),
      sourceColumn(2).map(as15Digits),
    ]);
  });

  it('returns the exact text where the number cannot hold the amount, empty elsewhere', () => {
    expect(column(raw, 3)).toEqual([
      '0.123456789012345678',
      '-12345678901.000000000000000001',
      '',
      '123456789012345678',
      '',
      '',
      '',
      '',
    ]);
  });

  it('returns integer cells equal to the source', () => {
    expect(column(raw, 4)).toEqual(sourceColumn(3));
  });

  it('returns datetimes as the Europe/Berlin wall time', () => {
    const expected = sourceColumn(4).map((instant) =>
      instant === ''
        ? ''
        : DateTime.fromISO(instant).setZone('Europe/Berlin').toFormat('yyyy-MM-dd HH:mm:ss'),
    );

    expect(column(raw, 5)).toEqual(expected);
  });

  it('returns decimals displayed with the decimals of the source literal', () => {
    expect(column(shown, 1)).toEqual([
      '-1.25',
      '1,234,567.89',
      '0.000000000000000001',
      '-0.50',
      '10',
      '0',
      '5',
      '',
    ]);
  });

  it('returns quantities shown to at most 15 significant digits, the double rounded, never binary noise', () => {
    /** Significant digits as shown: no sign, separators or leading zeros; an integer's trailing zeros are padding. */
    const significant = (text: string) => {
      const digits = text.replace(/[-,]/g, '');
      const kept = digits.includes('.') ? digits.replace('.', '') : digits.replace(/0+$/, '');
      return kept.replace(/^0+/, '').length;
    };
    const shownQuantities = column(shown, 2);
    expect([
      shownQuantities.filter((text) => significant(text) > 15),
      shownQuantities.map((text) => (text === '' ? '' : new Big(text.replace(/,/g, '')).toFixed())),
    ]).toEqual([[], sourceColumn(2).map(as15Digits)]);
  });
});

describe('LibreOffice reading the CSV writer output', () => {
  let raw: string[][] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-interop-'));
    const csv = await write('tricky.csv', (out) => writeCsv(source, out));
    raw = await convert(csv, csvExport(false), CSV_IMPORT);
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('returns the column keys as headers, the zoned datetime followed by its offset column', () => {
    expect(raw[0]).toEqual([...columns.map((c) => c.key), 'at_utc_offset']);
  });

  it('returns text verbatim with the formula guard apostrophe, never evaluated', () => {
    const guarded = sourceColumn(0).map((text) => (/^[=+\-@\t\r]/.test(text) ? `'${text}` : text));

    expect(column(raw, 0)).toEqual(guarded);
  });

  it('returns decimal cells as numbers equal to the source to 15 significant digits', () => {
    expect([column(raw, 1).map(asBig), column(raw, 2).map(asBig)]).toEqual([
      sourceColumn(1).map(as15Digits),
      sourceColumn(2).map(as15Digits),
    ]);
  });

  it('returns negative decimals as numbers, not guarded text', () => {
    expect(column(raw, 1).filter((shown) => shown.startsWith('-'))).toEqual(['-1.25', '-0.5']);
  });

  it('returns integer cells equal to the source', () => {
    expect(column(raw, 3)).toEqual(sourceColumn(3));
  });

  it('returns datetimes as their Europe/Berlin wall time, the offset beside them', () => {
    const berlin = (instant: string) => DateTime.fromISO(instant).setZone('Europe/Berlin');
    const expected = sourceColumn(4).map((instant) =>
      instant === ''
        ? ['', '']
        : [berlin(instant).toFormat("yyyy-MM-dd'T'HH:mm:ss.SSS"), `UTC${berlin(instant).toFormat('ZZ')}`],
    );

    expect(column(raw, 4).map((wall, i) => [wall, column(raw, 5)[i]])).toEqual(expected);
  });
});
