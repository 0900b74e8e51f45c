/**
 * A journal that cannot give a name of the data an account of its own fails the run before
 * anything is written, with a typed error naming the field and the name.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { JournalNameError } from '../../lib/ledger/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

describe('journal names in an export', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it("fails naming the token symbol, and publishes nothing, when the chart gives one token's account to another token", async () => {
    harness = await startExportHarness('demo');
    const run = runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['journal'],
        formats: ['csv'],
        // The demo holds BTC and ETH: ETH's own account is Assets:Crypto:ETH.
        journal: { chart: { asset: { tokens: { BTC: { code: 'Assets:Crypto:ETH' } } } } },
      }),
      harness.deps(),
    );
    await expect(run).rejects.toThrow(JournalNameError);
    await expect(run).rejects.toMatchObject({ field: 'token symbol' });
    await expect(run).rejects.toThrow(/Assets:Crypto:ETH is also the account of token symbol "(BTC|ETH)"/);
    expect(await harness.files()).toEqual([]);
  });
});
