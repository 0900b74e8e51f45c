/**
 * A restatement of the simulator's demo data says so, as every other file of a demo run does
 * (issue 39, item 10): its Read me (workbook and README.txt) starts with the DEMO DATA banner and
 * every printed page of its workbook carries it; a restatement of a real service's data does not.
 * The closed set is a demo export; the corrected snapshot is written here in the layout the
 * monthly check writes (the closed header plus `restatement`), one transaction deleted.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildRestatement, renderRestatement } from '../../lib/close/index.ts';
import { DEMO_BANNER, parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

describe('a restatement of demo data', () => {
  let harness: ExportHarness;
  let dir: string;
  let closed: string;
  let lines: Record<string, unknown>[];

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025-10', formats: ['csv'] }),
      harness.deps(),
    );
    closed = join(harness.outDir, result.prefix, 'demo_2025-10_snapshot.ndjson.gz');
    lines = gunzipSync(await readFile(closed))
      .toString('utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    dir = await mkdtemp(join(tmpdir(), 'pbs-restate-demo-'));
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Renders the restatement of `closedFile` with one transaction deleted; its README.txt and workbook header. */
  async function restate(name: string, closedFile: string, header: Record<string, unknown>) {
    const folder = join(dir, name);
    const deleted = lines.findIndex((line) => line.kind === 'transaction');
    const corrected = join(dir, `${name}-corrected.ndjson.gz`);
    const info = {
      close: {
        profile: 'demo',
        period: '2025-10',
        runId: 'r1',
        prefix: 'reports/demo/2025-10/r1/',
        manifestSha256: '0'.repeat(64),
        by: 'ann',
        at: '2025-11-03T09:00:00.000Z',
      },
      closedSnapshot: { name: 'demo_2025-10_snapshot.ndjson.gz', sha256: '1'.repeat(64) },
      checkedAt: '2025-11-10T09:00:00.000Z',
      lastModified: {},
    };
    const body = lines.slice(1).filter((_, i) => i + 1 !== deleted);
    await writeFile(
      corrected,
      gzipSync(`${[{ ...header, restatement: info }, ...body].map((l) => JSON.stringify(l)).join('\n')}\n`),
    );
    await mkdir(folder);
    const restatement = await buildRestatement(closedFile, corrected, folder);
    const files = await renderRestatement(restatement, { workDir: folder, correctedFile: corrected });
    const readme = await readFile(files.find((f) => f.name === 'README.txt')?.file ?? '', 'utf8');
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(files.find((f) => f.name.endsWith('.xlsx'))?.file ?? '');
    const headers = book.worksheets.map((sheet) => sheet.headerFooter.oddHeader ?? '');
    const first = book.worksheets[0]?.getRow(2).values as unknown[];
    return { readme, headers, first };
  }

  it('starts its Read me with the DEMO DATA banner and prints it on every page of its workbook', async () => {
    const header = lines[0] as Record<string, unknown>;
    expect(header.demo).toBe(true);
    const { readme, headers, first } = await restate('demo', closed, header);
    expect(readme.split('\n')[0]).toMatch(new RegExp(`^${DEMO_BANNER}: made by the simulator`));
    expect(first.slice(1, 2)).toEqual([DEMO_BANNER]);
    expect(headers.length).toBeGreaterThan(1);
    expect(headers.filter((h) => !h.includes(DEMO_BANNER))).toEqual([]);
  });

  it("carries no banner when the data is not the simulator's", async () => {
    const { demo: _, ...real } = lines[0] as Record<string, unknown>;
    const realClosed = join(dir, 'real-closed.ndjson.gz');
    await writeFile(
      realClosed,
      gzipSync(`${[real, ...lines.slice(1)].map((l) => JSON.stringify(l)).join('\n')}\n`),
    );
    const { readme, headers } = await restate('real', realClosed, real);
    expect([readme.includes('DEMO'), headers.filter((h) => h.includes('DEMO'))]).toEqual([false, []]);
  });
});
