/**
 * The "Read me" of a run (first sheet of the workbook, README.txt beside the CSV files), the About
 * sheet as a two-column table, and the demo banner: read back from the published files with
 * csv-parse and exceljs, over a real export from the simulator.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_BANNER, type Manifest, parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

interface Run {
  folder: string;
  manifest: Manifest;
  readme: string;
  workbook: ExcelJS.Workbook;
}

async function exportRun(harness: ExportHarness, request: unknown, demo: boolean): Promise<Run> {
  // The simulator marks every answer as demo data; a run that stands for the real service's sees
  // answers without that mark.
  const client = demo ? harness.client : { ...harness.client, servedDemoData: () => false };
  const result = await runExport(parseExportRequest(request), harness.deps({ demo, client }));
  const folder = join(harness.outDir, result.prefix);
  const workbook = new ExcelJS.Workbook();
  const xlsx = result.manifest.files.find((file) => file.name.endsWith('.xlsx'));
  await workbook.xlsx.readFile(join(folder, xlsx?.name ?? 'missing.xlsx'));
  return {
    folder,
    manifest: result.manifest,
    readme: await readFile(join(folder, 'README.txt'), 'utf8'),
    workbook,
  };
}

/** The cells of a sheet's columns A and B, header row dropped. */
function pairs(sheet: ExcelJS.Worksheet | undefined): [string, string][] {
  const rows: [string, string][] = [];
  sheet?.eachRow((row, n) => {
    if (n > 1) rows.push([row.getCell(1).text, row.getCell(2).text]);
  });
  return rows;
}

describe('the Read me and About of a run', () => {
  let harness: ExportHarness;
  let demo: Run;
  let real: Run;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    demo = await exportRun(harness, { profile: 'demo', period: '2025', window: 'day' }, true);
    real = await exportRun(
      harness,
      { profile: 'demo', period: '2025-03', reports: ['transactions', 'movements', 'summary'] },
      false,
    );
  }, 120_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('returns the Read me as the first sheet, a two-column table opening with the demo banner', () => {
    const sheet = demo.workbook.worksheets[0];
    expect([sheet?.name, sheet?.getCell('A1').text, sheet?.getCell('B1').text, pairs(sheet)[0]?.[0]]).toEqual(
      ['Read me', 'Topic', 'Text', DEMO_BANNER],
    );
  });

  it('returns a Read me line for every column of every report sheet, by its header and CSV column', () => {
    const lines = pairs(demo.workbook.getWorksheet('Read me')).map(([, text]) => text);
    const missing: string[] = [];
    for (const sheet of demo.workbook.worksheets) {
      if (sheet.name === 'Read me' || sheet.name === 'About') continue;
      sheet.getRow(1).eachCell((cell) => {
        const header = cell.text;
        const exact = header.endsWith(' (exact)');
        if (
          !lines.some((line) => line.startsWith(exact ? `${header} (sheet only)` : `${header} (CSV column `))
        ) {
          missing.push(`${sheet.name}: ${header}`);
        }
      });
    }
    expect(missing).toEqual([]);
  });

  it('returns README.txt beside the CSV files, listed in the manifest, naming each file and every CSV column', async () => {
    const missing: string[] = [];
    for (const file of demo.manifest.files.filter((f) => f.name.endsWith('.csv'))) {
      if (!demo.readme.includes(`${file.name}: `)) missing.push(file.name);
      const [header] = parse(await readFile(join(demo.folder, file.name)), {
        bom: true,
        to_line: 1,
      }) as string[][];
      for (const key of header ?? []) {
        if (!demo.readme.includes(`(CSV column ${key})`)) missing.push(`${file.name}: ${key}`);
      }
    }
    expect([missing, demo.manifest.files.some((f) => f.name === 'README.txt')]).toEqual([[], true]);
  });

  it('returns in README.txt the offset column the CSV writes beside each date of a zone other than UTC', async () => {
    const berlin = await exportRun(
      harness,
      {
        profile: 'demo',
        period: '2025-03',
        timeZone: 'Europe/Berlin',
        reports: ['transactions', 'changes'],
        formats: ['csv', 'xlsx'],
        changesSince: '2025-01-01T00:00:00Z',
      },
      true,
    );
    const missing: string[] = [];
    for (const file of berlin.manifest.files.filter((f) => f.name.endsWith('.csv'))) {
      const [header] = parse(await readFile(join(berlin.folder, file.name)), {
        bom: true,
        to_line: 1,
      }) as string[][];
      for (const key of header ?? []) {
        if (!berlin.readme.includes(`(CSV column ${key})`)) missing.push(`${file.name}: ${key}`);
      }
    }
    const offsets = berlin.readme.split('\r\n').filter((line) => line.includes('_utc_offset)'));
    expect([missing, offsets.length]).toEqual([[], 3]);
  });

  it('returns the options, signs, data source and run id in words', () => {
    expect(demo.readme).toEqual(
      expect.stringMatching(/^DEMO DATA, not a real portfolio: made by the simulator/),
    );
    for (const words of [
      'Signs: Movements: a positive amount came into the portfolio, a negative one left it',
      'time zone UTC: ',
      'filters: none; protocols: all transactions',
      'CSV: fields separated by comma, decimal point',
      `Run id: ${demo.manifest.runId}`,
      'Data source: the simulator built into pbs-export at http://127.0.0.1:',
    ]) {
      expect(demo.readme).toContain(words);
    }
  });

  it('returns the About sheet as a two-column table: the request field by field, no JSON', () => {
    const about = pairs(demo.workbook.getWorksheet('About'));
    expect([
      about[0]?.[0],
      about.find(([item]) => item === 'Request: profile')?.[1],
      about.find(([item]) => item === 'Request: reports')?.[1],
      about.filter(([, value]) => value.startsWith('{') || value.startsWith('[')),
    ]).toEqual([DEMO_BANNER, 'demo', 'transactions, movements, summary', []]);
  });

  it('returns the windows as a count on the About sheet when there are 100 or more, the manifest listing all', () => {
    const about = pairs(demo.workbook.getWorksheet('About'));
    expect([
      about.filter(([item]) => item.startsWith('Window ')).length,
      about.find(([item]) => item === 'Windows')?.[1],
      demo.manifest.windows.length,
    ]).toEqual([0, '365 (too many to list here: manifest.json lists every one)', 365]);
  });

  it('returns the windows one by one when there are fewer than 100', () => {
    const about = pairs(real.workbook.getWorksheet('About'));
    expect(about.filter(([item]) => item.startsWith('Window ')).map(([item]) => item)).toEqual([
      'Window 2025-03',
    ]);
  });

  it('returns the demo banner in the manifest of a simulator run only', () => {
    expect([
      [demo.manifest.demo, demo.manifest.notice],
      [real.manifest.demo, real.manifest.notice],
    ]).toEqual([
      [true, DEMO_BANNER],
      [undefined, undefined],
    ]);
  });

  it('returns no demo banner anywhere for a run on a real service', () => {
    const cells = real.workbook.worksheets.flatMap((sheet) => pairs(sheet).flat());
    expect([
      real.readme.includes('DEMO'),
      cells.filter((cell) => cell.includes('DEMO')),
      real.workbook.worksheets.map((sheet) => sheet.headerFooter.oddHeader?.includes('DEMO')),
    ]).toEqual([false, [], real.workbook.worksheets.map(() => false)]);
  });
});

describe('the Read me of a gains run', () => {
  let harness: ExportHarness;
  afterAll(async () => {
    await harness?.close();
  });

  it('returns the tax rules and every gains policy in words, and the About sheet lists them by field', async () => {
    harness = await startExportHarness('demo');
    const run = await exportRun(
      harness,
      {
        profile: 'demo',
        period: '2025-03',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains: {
          taxRules: 'uk',
          protocolMoves: 'non-taxable',
          transferInBasis: 'zero',
          transferFee: 'basis',
          // The simulator's values are in USD.
          currency: 'USD',
        },
      },
      true,
    );

    for (const words of [
      "tax rules: United Kingdom (HMRC's same-day, 30-day and section 104 pool identification)",
      'lending, liquidity and staking moves: non-taxable moves that keep the lots',
      'transfers in from outside the portfolio: basis zero, with a "missing cost basis" warning',
      "a fiat fee on a transfer between own accounts: added to the moved lots' basis",
      'events at one instant: in the order the service sent them',
      "figures in: USD, the data's currency, by explicit choice (uk rules compute in GBP: convert at each transaction's rate before filing)",
    ]) {
      expect(run.readme).toContain(words);
    }
    const about = pairs(run.workbook.getWorksheet('About')).map(([topic, text]) => `${topic}: ${text}`);
    // Request fields in words, not camelCase: "Request: gains, tax rules".
    expect(about.join('\n')).toMatch(/Request: gains, tax rules.*uk/);
    expect(about.join('\n')).not.toMatch(/[a-z][A-Z]/);
    // Windows as the calendar days they cover; counts saying what they count.
    const windows = about.filter((line) => line.startsWith('Window '));
    expect([
      windows.length > 0,
      windows.filter((line) => !/^Window \S+: (\d{4}-\d{2}-\d{2}) to (\d{4}-\d{2}-\d{2}) \(/.test(line)),
      about.some((line) => /^Gains: disposals over the whole history \(all years; .*\): \d+$/.test(line)),
    ]).toEqual([true, [], true]);
  }, 120_000);

  it('explains every column of every file, every warning kind, and opens with the warnings by kind as the warnings file counts them', async () => {
    harness ??= await startExportHarness('demo');
    const run = await exportRun(
      harness,
      {
        profile: 'demo',
        period: '2025',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains: { taxRules: 'us' },
      },
      true,
    );
    const warnings = parse(await readFile(join(run.folder, 'demo_2025_gains_warnings.csv'), 'utf8'), {
      columns: true,
      bom: true,
    }) as Record<string, string>[];
    const byKind = new Map<string, number>();
    for (const row of warnings) byKind.set(row.kind as string, (byKind.get(row.kind as string) ?? 0) + 1);
    const expected = [...byKind]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([kind, n]) => `${n} ${kind}`)
      .join(', ');
    const lines = run.readme.split('\r\n');
    const kinds = [
      'zero-basis',
      'missing-value',
      'negative-balance',
      'unmatched-transfer',
      'missing-cost-basis',
      'thirty-day-window',
      'other-currency',
    ];
    expect([
      warnings.length > 0,
      lines
        .slice(0, 6)
        .some((line) => line.includes(`${warnings.length} warning(s) on the "Warnings" sheet (${expected})`)),
      lines.filter((line) => line.includes('as its header says')),
      kinds.filter((kind) => !lines.some((line) => line.startsWith(`    ${kind}: `) && line.length > 80)),
    ]).toEqual([true, true, [], []]);
  }, 120_000);
});
