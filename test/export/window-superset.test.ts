/**
 * A service that can only filter by whole UTC days (`iso-date` windows, GAPS.md) returns each
 * window's neighbours' rows too. The export keeps each transaction once, in the window of its
 * date, in date order: exactly the transactions of the period, whatever the window size and zone.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';
import { generatedIds } from '../support/simulator.ts';

const SEED = 1;
const SHAPE: ServiceShapeOverrides = { window: { dateFormat: 'iso-date' } };

describe('runExport against a service filtering by whole UTC days (iso-date windows)', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it.each(['day', 'month'] as const)(
    'exports every transaction of a Berlin year once, in date order, with %s windows',
    async (window) => {
      harness = await startExportHarness('acme', { seed: SEED, shape: SHAPE }, { shape: SHAPE });
      const request = parseExportRequest({
        profile: 'acme',
        period: '2024',
        timeZone: 'Europe/Berlin',
        window,
      });

      const result = await runExport(request, harness.deps());

      const simulated = harness.simulator.profiles.find((p) => p.name === 'acme');
      if (simulated === undefined) throw new Error('no simulated profile acme');
      const expected = generatedIds(simulated, SEED, '2023-12-31T23:00:00.000Z', '2024-12-31T23:00:00.000Z');
      const rows = await readCsv(join(harness.outDir, result.prefix, 'acme_2024_transactions.csv'));
      expect(rows.map((row) => row.id)).toEqual(expected);
      expect(result.manifest.counts.keptFromOtherWindow).toBe(0);
    },
  );
});
