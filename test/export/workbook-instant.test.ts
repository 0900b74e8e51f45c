/**
 * The workbook is dated by the run, not by the clock (issue 39, item 13): a run rendered again from
 * its snapshot, later, writes the same bytes, and `docProps/core.xml` (read back with jszip) says
 * when the run fetched its data.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import JSZip from 'jszip';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseExportRequest, readSnapshotHeader, renderReports, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

describe('the workbook of a run rendered again', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('is dated by the run and has the same bytes whatever the clock says', async () => {
    harness = await startExportHarness('demo');
    const request = { profile: 'demo', period: '2025-10', reports: ['summary'], formats: ['xlsx'] };
    const result = await runExport(parseExportRequest(request), harness.deps());
    const snapshotFile = join(harness.outDir, result.prefix, 'demo_2025-10_snapshot.ndjson.gz');
    const header = await readSnapshotHeader(snapshotFile);
    const workDir = await mkdtemp(join(tmpdir(), 'pbs-book-'));
    const render = async (clock: string) => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date(clock));
      try {
        const rendered = await renderReports({
          snapshotFile,
          header,
          runId: 'r',
          now: () => new Date(header.createdAt),
          generator: { name: 'pbs-export', version: 'test' },
          counts: {},
          workDir,
        });
        const book = rendered.files.find((file) => file.name.endsWith('.xlsx'));
        return await readFile(book?.file ?? '');
      } finally {
        vi.useRealTimers();
      }
    };
    try {
      const first = await render('2026-03-01T10:00:00Z');
      const core = await (await JSZip.loadAsync(first)).file('docProps/core.xml')?.async('string');
      const created = /<dcterms:created[^>]*>([^<]+)</.exec(core ?? '')?.[1];
      expect(created).toBe(header.createdAt.replace(/\.\d{3}Z$/, 'Z'));
      const second = await render('2027-07-09T18:30:00Z');
      const digest = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
      expect(digest(second)).toBe(digest(first));
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  });
});
