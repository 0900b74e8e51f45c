/**
 * The adjustments never change the snapshot: an export of the simulator's data with and without
 * an adjustments file writes the same snapshot bytes (same SHA-256), while the gains figures differ.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAdjustments, serializeAdjustments } from '../../lib/adjustments/index.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { profilesWithCounts } from '../../lib/simulator/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

const INPUT = { profile: 'demo', period: '2025', reports: ['gains'], formats: ['csv'] };
const REQUEST = parseExportRequest(INPUT);

describe('adjustments and the snapshot', () => {
  let harness: ExportHarness;
  beforeAll(async () => {
    harness = await startExportHarness('demo', { profiles: profilesWithCounts({ demo: 400 }) });
  });
  afterAll(async () => {
    await harness.close();
  });

  it('writes the same snapshot bytes with and without adjustments', async () => {
    const plain = await runExport(REQUEST, harness.deps({ runId: 'plain' }));
    const folder = (prefix: string) => join(harness.outDir, prefix);
    const warnings = await readCsv(join(folder(plain.prefix), 'demo_2025_gains_warnings.csv'));
    const token = warnings[0]?.token as string;
    const adjustments = parseAdjustments(
      serializeAdjustments({
        schema: 'pbs-export/adjustments@1',
        profile: 'demo',
        version: 1,
        adjustments: [
          { id: 's1', kind: 'spam', token, by: 'ann', at: '2026-11-21T09:00:00Z', why: 'not ours' },
        ],
      }),
    );
    // As the HTTP API asks for them: the request names the version and its SHA-256.
    const asked = parseExportRequest({
      ...INPUT,
      adjustments: { version: 1, sha256: adjustments.sha256 },
    });
    const adjusted = await runExport(asked, harness.deps({ runId: 'adjusted', adjustments }));
    const sha = async (prefix: string) =>
      createHash('sha256')
        .update(await readFile(join(folder(prefix), 'demo_2025_snapshot.ndjson.gz')))
        .digest('hex');
    expect(await sha(adjusted.prefix)).toBe(await sha(plain.prefix));
    // The figures did change: the spam token is gone from the holdings.
    const holdings = async (prefix: string) =>
      (await readCsv(join(folder(prefix), 'demo_2025_holdings_exact.csv'))).map((row) => row.token);
    expect(await holdings(plain.prefix)).toContain(token);
    expect(await holdings(adjusted.prefix)).not.toContain(token);
    expect(adjusted.manifest.adjustments).toEqual({
      profile: 'demo',
      version: 1,
      sha256: adjustments.sha256,
    });
  }, 120_000);
});
