/**
 * The PDF tax pack, from outside: an export over HTTP from the simulator, the PDF read back with
 * poppler (`pdftotext`, `pdffonts`, `pdfinfo`) and its figures compared with the CSV files.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseExportRequest, readSnapshotHeader, renderReports, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);

/** The PDF's text, page by page, as `pdftotext` lays it out (or, `raw`, in drawing order). */
async function pdfPages(file: string, mode: '-layout' | '-raw' = '-layout'): Promise<string[]> {
  const { stdout } = await run('pdftotext', [mode, file, '-']);
  return stdout.split('\f').slice(0, -1);
}

const squeeze = (text: string) => text.replace(/\s+/g, ' ');

describe('the PDF tax pack', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('writes a US pack with the explainer, the Schedule D lines of the CSV, DejaVu embedded and page N of M on every page', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains: { taxRules: 'us' },
      }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const pdf = join(folder, 'demo_2025_tax_pack.pdf');
    const listed = result.manifest.files.find((f) => f.name === 'demo_2025_tax_pack.pdf');
    expect(listed?.sha256).toBe(
      createHash('sha256')
        .update(await readFile(pdf))
        .digest('hex'),
    );
    const snapshot = result.manifest.files.find((f) => f.name.endsWith('_snapshot.ndjson.gz'));
    expect(snapshot?.sha256).toMatch(/^[0-9a-f]{64}$/);

    const pages = await pdfPages(pdf);
    const { stdout: info } = await run('pdfinfo', [pdf]);
    expect(Number(/Pages:\s+(\d+)/.exec(info)?.[1])).toBe(pages.length);
    pages.forEach((page, i) => {
      expect(page).toContain(`Page ${i + 1} of ${pages.length}`);
      expect(page).toContain(`snapshot sha256 ${snapshot?.sha256}`);
      expect(page).toContain(`run ${result.runId}`);
      expect(page).toContain('DEMO DATA, not a real portfolio');
    });
    const first = squeeze(pages[0] as string);
    for (const fact of [
      'Tax pack: demo, 2025',
      'Client (profile) demo',
      'Rule set us',
      'Lot method fifo',
      'Currency USD',
      `Data source ${result.manifest.apiBase} (the simulator built into pbs-export)`,
      `Run id ${result.runId}`,
    ]) {
      expect(first).toContain(fact);
    }

    const scheduleD = await readCsv(join(folder, 'demo_2025_schedule-d.csv'));
    expect(scheduleD.length).toBeGreaterThan(0);
    const text = pages.join('\n');
    for (const line of scheduleD) {
      const cells = [
        line.tax_year,
        line.line,
        line.box,
        line.proceeds,
        line.cost,
        line.adjustment,
        line.gain,
      ];
      // Lines 7, 15 and 16 have column (h) only: their empty cells print as nothing.
      const printed = [...cells, line.rows].filter((cell) => (cell ?? '') !== '');
      expect(text).toMatch(
        new RegExp(`^\\s*${printed.map((c) => (c ?? '').replace('.', '\\.')).join('\\s+')}\\s*$`, 'm'),
      );
    }

    const { stdout: fonts } = await run('pdffonts', [pdf]);
    const rows = fonts
      .split('\n')
      .slice(2)
      .filter((row) => row.trim() !== '');
    expect(rows.map((row) => row.split(/\s+/)[0]?.replace(/^[A-Z]{6}\+/, '')).sort()).toEqual([
      'DejaVuSans',
      'DejaVuSans-Bold',
    ]);
    // The last columns: encoding, emb, sub, uni, object id (two numbers).
    for (const row of rows) expect(row.split(/\s+/).slice(-5)[0]).toBe('yes');
  });

  it('writes a UK pack whose SA108 boxes are those of the tax summary CSV, and none for a CSV-only run', async () => {
    harness = await startExportHarness('demo');
    const request = (formats: string[]) =>
      parseExportRequest({
        profile: 'demo',
        period: { from: '2024-04-06', to: '2025-04-05' },
        timeZone: 'Europe/London',
        reports: ['gains'],
        formats,
        gains: { taxRules: 'uk', currency: 'USD' },
      });
    const result = await runExport(request(['csv', 'xlsx']), harness.deps());
    const base = join(harness.outDir, result.prefix, 'demo_2024-04-06_2025-04-05');
    const summary = await readCsv(`${base}_tax_summary.csv`);
    const boxes = summary.filter(
      (row) => row.form_line?.startsWith('SA108') && (row.amount !== '' || row.number !== ''),
    );
    // 13.1 to 13.5: the 30 October split is no box (issue 39, item 7).
    expect(boxes.map((row) => row.form_line)).toEqual([
      'SA108 box 13.1',
      'SA108 box 13.2',
      'SA108 box 13.3',
      'SA108 box 13.4',
      'SA108 box 13.5',
    ]);
    // In drawing order, a row's cells follow one another: tax year, box, what it is, item, number, amount.
    const text = squeeze((await pdfPages(`${base}_tax_pack.pdf`, '-raw')).join(' '));
    for (const row of boxes) {
      expect(text).toContain(
        squeeze(
          [row.tax_year, row.form_line, row.what, row.item, row.number, row.amount].filter(Boolean).join(' '),
        ),
      );
    }
    expect(text).toContain('Rule set uk');
    // The warnings line counts in words: "1 warning", never "1 warnings".
    const warningRows = (await readCsv(`${base}_gains_warnings.csv`)).length;
    expect(text).toContain(`${warningRows} warning${warningRows === 1 ? '' : 's'}; the warnings file`);
    expect(text).not.toMatch(/(^|\D)1 warnings/);

    const csvOnly = await runExport(request(['csv']), harness.deps());
    const names = await readdir(join(harness.outDir, csvOnly.prefix));
    expect(names.some((name) => name.endsWith('.pdf'))).toBe(false);
  });

  it('is not written when the renderer is told so (the Lambda functions, which ship no fonts)', async () => {
    harness = await startExportHarness('demo');
    const request = {
      profile: 'demo',
      period: '2025',
      reports: ['gains'],
      formats: ['csv', 'xlsx'],
      gains: { taxRules: 'us' },
    };
    const result = await runExport(parseExportRequest(request), harness.deps());
    const snapshotFile = join(harness.outDir, result.prefix, 'demo_2025_snapshot.ndjson.gz');
    const workDir = await mkdtemp(join(tmpdir(), 'pbs-pack-'));
    try {
      const render = async (taxPack?: boolean) =>
        renderReports({
          snapshotFile,
          header: await readSnapshotHeader(snapshotFile),
          runId: 'r',
          now: () => new Date('2026-01-01T00:00:00Z'),
          generator: { name: 'pbs-export', version: 'test' },
          counts: {},
          workDir,
          ...(taxPack === undefined ? {} : { taxPack }),
        });
      const hasPack = async (taxPack?: boolean) =>
        (await render(taxPack)).files.some((file) => file.name.endsWith('_tax_pack.pdf'));
      expect(await hasPack(false)).toBe(false);
      expect(await hasPack()).toBe(true);
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });

  it('writes the same bytes when the same run is rendered again later (its date is the run time, not the clock)', async () => {
    harness = await startExportHarness('demo');
    const request = { profile: 'demo', period: '2025-10', reports: ['gains'], gains: { taxRules: 'us' } };
    const result = await runExport(parseExportRequest(request), harness.deps());
    const snapshotFile = join(harness.outDir, result.prefix, 'demo_2025-10_snapshot.ndjson.gz');
    const workDir = await mkdtemp(join(tmpdir(), 'pbs-pack-'));
    const packDigest = async (clock: string) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(clock));
      try {
        const rendered = await renderReports({
          snapshotFile,
          header: await readSnapshotHeader(snapshotFile),
          runId: 'r',
          now: () => new Date('2026-01-01T00:00:00Z'),
          generator: { name: 'pbs-export', version: 'test' },
          counts: {},
          workDir,
        });
        const pack = rendered.files.find((file) => file.name.endsWith('_tax_pack.pdf'));
        return createHash('sha256')
          .update(await readFile(pack?.file ?? ''))
          .digest('hex');
      } finally {
        vi.useRealTimers();
      }
    };
    try {
      expect(await packDigest('2026-03-01T10:00:00Z')).toBe(await packDigest('2027-07-09T18:30:00Z'));
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
