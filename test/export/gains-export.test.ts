import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Big from 'big.js';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../lib/errors.ts';
import { createNormalizer, parseExportRequest, runExport } from '../../lib/export/index.ts';
import { runGains } from '../../lib/gains/index.ts';
import { type ExportHarness, readCsv, renderSnapshotAgain, startExportHarness } from '../support/export.ts';

const sum = (values: string[]) => values.reduce((total, value) => total.plus(value || '0'), new Big(0));

describe('runExport with the gains reports (simulator over HTTP, local folder)', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  /** Every transaction from the portfolio's first day to `end`, in canonical form, straight from the service. */
  async function referenceHistory(end: string, timeZone: string) {
    const normalizer = createNormalizer({ fields: harness.client.shape.fields, timeZone });
    const bounds = await harness.client.dateBounds();
    const history = [];
    for await (const tx of harness.client.transactions({
      window: { start: bounds.earliest as Date, end: new Date(end) },
    })) {
      history.push(normalizer.canonical(tx));
    }
    return history;
  }

  it('fetches from the earliest date but keeps the transactions report to the period', async () => {
    harness = await startExportHarness('acme');
    const bounds = await harness.client.dateBounds();
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        reports: ['transactions', 'gains'],
        formats: ['csv'],
      }),
      harness.deps(),
    );
    // From the start of the earliest transaction's day (UTC): a bound never cuts a window.
    expect(result.manifest.windows[0]?.start).toBe(
      `${bounds.earliest?.toISOString().slice(0, 10)}T00:00:00.000Z`,
    );
    expect(bounds.earliest?.getTime()).toBeLessThan(Date.parse('2024-01-01T00:00:00Z'));
    const rows = await readCsv(join(harness.outDir, result.prefix, 'acme_2024_transactions.csv'));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.date_utc?.startsWith('2024-'))).toBe(true);
    expect(result.manifest.counts.transactions).toBe(rows.length);
    expect(result.manifest.counts.historyTransactions).toBeGreaterThan(rows.length);
  });

  it('writes exact disposals (the _exact file) equal to one pass of the engine over the whole history', async () => {
    harness = await startExportHarness('acme');
    const timeZone = 'Europe/Berlin';
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        timeZone,
        reports: ['gains'],
        formats: ['csv'],
        gains: { method: 'hifo', pooling: 'account' },
      }),
      harness.deps(),
    );
    const reference = runGains(await referenceHistory('2024-12-31T23:00:00.000Z', timeZone), {
      method: 'hifo',
      pooling: 'account',
      timeZone,
      period: { start: '2023-12-31T23:00:00.000Z', end: '2024-12-31T23:00:00.000Z' },
    });
    const rows = await readCsv(join(harness.outDir, result.prefix, 'acme_2024_disposals_exact.csv'));
    expect(reference.result.disposals.length).toBeGreaterThan(0);
    expect(rows.map((row) => [row.disposed_tx_id, row.acquired_tx_id, row.quantity, row.gain_loss])).toEqual(
      reference.result.disposals.map((line) => [
        line.disposedTxId,
        line.acquiredTxId ?? '',
        line.quantity,
        line.gain,
      ]),
    );
  });

  it('reports total gains equal to total proceeds minus total basis to the last decimal', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025', reports: ['gains'], formats: ['csv'] }),
      harness.deps(),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'demo_2025_disposals.csv'));
    const proceeds = sum(rows.map((row) => row.proceeds as string));
    const basis = sum(rows.map((row) => row.cost_basis as string));
    const gains = sum(rows.map((row) => row.gain_loss as string));
    expect(gains.eq(proceeds.minus(basis))).toBe(true);
    const summary = await readCsv(join(harness.outDir, result.prefix, 'demo_2025_gains_summary.csv'));
    const perToken = summary.filter((row) => row.token !== 'TOTAL');
    expect(sum(perToken.map((row) => row.net as string)).toFixed()).toBe(gains.toFixed());
  });

  it('records the rounding and each exact file in the manifest and the Read me, and writes the us Form 8949 package', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        reports: ['gains'],
        formats: ['csv'],
        gains: { taxRules: 'us', brokerReporting: 'basis-not-reported' },
      }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const readme = await readFile(join(folder, 'README.txt'), 'utf8');
    const form = await readCsv(join(folder, 'acme_2024_form-8949.csv'));
    const exact = await readCsv(join(folder, 'acme_2024_disposals_exact.csv'));
    expect([
      result.manifest.gains?.money,
      readme.includes('acme_2024_disposals_exact.csv'),
      readme.includes('box H and K from 2025, B and E before'),
      [...new Set(form.map((row) => row.box))],
      exact.length > 0,
    ]).toEqual([
      {
        currency: 'USD',
        minorUnit: 2,
        rule: expect.stringMatching(/half to even/),
        exact: {
          disposals: 'acme_2024_disposals_exact.csv',
          gains_summary: 'acme_2024_gains_summary_exact.csv',
          income: 'acme_2024_income_exact.csv',
          holdings: 'acme_2024_holdings_exact.csv',
        },
      },
      true,
      true,
      // 2024: before the digital-asset boxes, a 1099-B without basis: B (short) and E (long).
      ['B', 'E'].filter((box) => form.some((row) => row.box === box)),
      true,
    ]);
    expect(form.length).toBeGreaterThan(0);
  });

  it('records method, pooling, fee treatment, tax year start and zone in the manifest and the About sheet', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        timeZone: 'Europe/London',
        reports: ['gains'],
        formats: ['xlsx'],
        gains: { method: 'average', taxYearStart: '04-06' },
      }),
      harness.deps(),
    );
    expect(result.manifest.gains).toMatchObject({
      method: 'average',
      pooling: 'universal',
      taxYearStart: '04-06',
      timeZone: 'Europe/London',
      feeTreatment: expect.stringMatching(/cost basis.*proceeds/),
    });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(harness.outDir, result.prefix, 'acme_2024.xlsx'));
    const about = new Map<string, string>();
    workbook.getWorksheet('About')?.eachRow((row) => {
      about.set(String(row.getCell(1).value), String(row.getCell(2).value));
    });
    expect(about.get('Gains: lot method')).toBe('average');
    expect(about.get('Gains: pools')).toBe('one for the whole portfolio (universal)');
    expect(about.get('Gains: tax year starts')).toBe('04-06 (MM-DD, in Europe/London)');
    expect(about.get('Gains: fee treatment')).toMatch(/cost basis/);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual(
      expect.arrayContaining(['Disposals', 'Gains summary', 'Income', 'Holdings roll-forward', 'Warnings']),
    );
  });

  it('records the gains policies in the manifest, defaults included', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        reports: ['gains'],
        formats: ['csv'],
        gains: {
          pooling: 'account',
          protocolMoves: 'non-taxable',
          transferFee: 'basis',
          transferToleranceHours: 2,
        },
      }),
      harness.deps(),
    );
    expect(result.manifest.gains).toMatchObject({
      sameInstantOrder: 'input',
      protocolMoves: 'non-taxable',
      transferInBasis: 'market-value',
      transferFee: 'basis',
      transferToleranceHours: 2,
    });
    // Lending supplies and liquidity adds moved lots into positions, shown per position account.
    const holdings = await readCsv(join(harness.outDir, result.prefix, 'acme_2024_holdings.csv'));
    expect(holdings.some((row) => /\[lending (Aave V3|Compound V3)\]$/.test(row.account ?? ''))).toBe(true);
    // Costs are shown at the minor unit: a balanced row's cost check is 0.00.
    expect(holdings.every((row) => row.check_quantity === '0' && row.check_cost === '0.00')).toBe(true);
  });

  it('refuses a gains policy outside its vocabulary, naming the field', () => {
    const refuse = (gains: Record<string, unknown>) => () =>
      parseExportRequest({ profile: 'acme', period: '2024', reports: ['gains'], gains });
    expect(refuse({ sameInstantOrder: 'random' })).toThrow(/gains\.sameInstantOrder/);
    expect(refuse({ protocolMoves: 'maybe' })).toThrow(/gains\.protocolMoves/);
    expect(refuse({ transferInBasis: 'cost' })).toThrow(/gains\.transferInBasis/);
    expect(refuse({ transferFee: 'disposal' })).toThrow(/gains\.transferFee/);
    expect(refuse({ transferToleranceHours: -1 })).toThrow(/gains\.transferToleranceHours/);
  });

  it('writes the uk reports by HMRC identification: matching rule per part, section 104 pools, Capital Gains summary', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: { from: '2024-04-06', to: '2025-04-05' },
        timeZone: 'Europe/London',
        window: 'week',
        reports: ['gains'],
        formats: ['csv'],
        // The simulator's values are in USD: computed in USD by explicit choice.
        gains: { taxRules: 'uk', currency: 'USD' },
      }),
      harness.deps(),
    );
    expect(result.manifest.gains).toMatchObject({
      taxRules: 'uk',
      method: 'hmrc',
      pooling: 'universal',
      taxYearStart: '04-06',
    });
    const base = join(harness.outDir, result.prefix, 'acme_2024-04-06_2025-04-05');
    const disposals = await readCsv(`${base}_disposals.csv`);
    expect(disposals.length).toBeGreaterThan(0);
    expect(new Set(disposals.map((row) => row.rule))).toEqual(
      new Set(
        ['same-day', 'thirty-day', 'section-104', 'no-basis'].filter((r) =>
          disposals.some((d) => d.rule === r),
        ),
      ),
    );
    expect(disposals.every((row) => row.tax_year === '2024/25' && row.term === 'none')).toBe(true);
    const pools = await readCsv(`${base}_pool_history.csv`);
    expect(pools.length).toBeGreaterThan(0);
    const summary = await readCsv(`${base}_tax_summary.csv`);
    const item = (name: string) => summary.find((row) => row.item === name)?.amount;
    // GBP: to the penny, the sums of the disposal lines as shown.
    expect(item('Cryptoassets: disposal proceeds')).toBe(
      sum(disposals.map((row) => row.proceeds as string)).toFixed(2),
    );
    expect(item('Cryptoassets: allowable costs (including purchase price)')).toBe(
      sum(disposals.map((row) => row.cost_basis as string)).toFixed(2),
    );
    // Every money table names its currency (issue 24, item 10): a currency column in the CSV.
    expect(new Set([...disposals, ...summary].map((row) => row.currency))).toEqual(new Set(['USD']));
    const holdings = await readCsv(`${base}_holdings.csv`);
    // Costs are shown at the minor unit: a balanced row's cost check is 0.00.
    expect(holdings.every((row) => row.check_quantity === '0' && row.check_cost === '0.00')).toBe(true);
  });

  it("refuses a uk run on the simulator's USD values, naming gains.currency, unless USD is chosen explicitly", async () => {
    harness = await startExportHarness('acme');
    const request = (gains: Record<string, unknown>) =>
      parseExportRequest({
        profile: 'acme',
        period: { from: '2024-04-06', to: '2025-04-05' },
        // The rules' zone: Europe/London under uk, Europe/Berlin under de.
        reports: ['gains'],
        formats: ['csv'],
        gains,
      });
    const refused = await runExport(request({ taxRules: 'uk' }), harness.deps()).catch((error) => error);
    expect(refused).toBeInstanceOf(ValidationError);
    expect(refused.message).toMatch(
      /^gains\.currency: uk figures are in GBP, but transaction \S+ has values in USD/,
    );
    expect(refused.message).toContain('set gains.currency (CLI --gains-currency) to USD');
    const chosen = await runExport(request({ taxRules: 'uk', currency: 'USD' }), harness.deps());
    expect(chosen.manifest.gains).toMatchObject({ taxRules: 'uk', currency: 'USD' });
    const de = await runExport(request({ taxRules: 'de' }), harness.deps()).catch((error) => error);
    expect(de.message).toMatch(
      /^gains\.currency: de figures are in EUR, but transaction \S+ has values in USD/,
    );
  });

  it("returns the currency of the figures: the rule set's by default, none checked under generic", () => {
    const currency = (gains: Record<string, unknown>) =>
      parseExportRequest({ profile: 'acme', period: '2024', reports: ['gains'], gains }).gains?.currency;
    expect(currency({ taxRules: 'uk' })).toBe('GBP');
    expect(currency({ taxRules: 'de' })).toBe('EUR');
    expect(currency({ taxRules: 'us' })).toBe('USD');
    expect(currency({})).toBeNull();
    expect(currency({ taxRules: 'uk', currency: null })).toBeNull();
    expect(() => currency({ taxRules: 'uk', currency: 'pound' })).toThrow(
      /gains\.currency: expected an ISO 4217 currency code/,
    );
  });

  it('refuses an option the tax rules contradict, naming the field and the law', () => {
    const refuse = (gains: Record<string, unknown>) => () =>
      parseExportRequest({ profile: 'acme', period: '2024', reports: ['gains'], gains });
    expect(refuse({ taxRules: 'uk', method: 'hifo' })).toThrow(
      /gains\.method: uk rules match by HMRC identification/,
    );
    expect(refuse({ taxRules: 'uk', taxYearStart: '01-01' })).toThrow(
      /gains\.taxYearStart: the UK tax year starts on 6 April/,
    );
    expect(refuse({ taxRules: 'de', method: 'lifo' })).toThrow(/gains\.method: de rules use FIFO/);
    expect(refuse({ taxRules: 'us', method: 'average' })).toThrow(/gains\.method: us rules identify units/);
    expect(refuse({ taxRules: 'us', pooling: 'universal' })).toThrow(
      /gains\.pooling: us rules pool universally before 1 January 2025/,
    );
    expect(refuse({ taxRules: 'ca' })).toThrow(/gains\.taxRules/);
    // A parsed request parses again unchanged, the rule set's fixed choices included.
    const parsed = parseExportRequest({
      profile: 'acme',
      period: '2024',
      reports: ['gains'],
      gains: { taxRules: 'uk' },
    });
    expect(parseExportRequest(parsed)).toEqual(parsed);
  });

  it('rebuilds from the snapshot, in memory, gains reports byte-identical to the spooled ones', async () => {
    harness = await startExportHarness('acme');
    const request = parseExportRequest({
      profile: 'acme',
      period: { from: '2024-07-01', to: '2024-12-31' },
      reports: ['gains'],
      formats: ['csv'],
    });
    const result = await runExport(request, harness.deps());
    const snapshot = result.manifest.files.find((file) => file.name.endsWith('_snapshot.ndjson.gz'));
    const rebuilt = await renderSnapshotAgain(
      join(harness.outDir, snapshot?.key as string),
      harness.sink,
      'rebuilt',
      () => new Date('2026-11-22T10:00:00.000Z'),
    );
    for (const name of ['disposals', 'gains_summary', 'income', 'holdings', 'gains_warnings']) {
      const original = result.manifest.files.find((f) => f.name === `acme_2024-07-01_2024-12-31_${name}.csv`);
      const again = rebuilt.files.find((f) => f.name === original?.name);
      expect(original?.rows, name).toBeGreaterThan(0);
      expect(again?.sha256, name).toBe(original?.sha256);
    }
    expect(rebuilt.counts.gainsLotsMatched).toBe(result.manifest.counts.gainsLotsMatched);
  });

  it('refuses filters and protocols with the gains report, naming the field, before any request', () => {
    const refuse = (input: Record<string, unknown>) => () =>
      parseExportRequest({ profile: 'acme', period: '2024', reports: ['gains'], ...input });
    expect(refuse({ filters: { tokens: ['ETH'] } })).toThrow(ValidationError);
    expect(refuse({ filters: { tokens: ['ETH'] } })).toThrow(
      /filters\.tokens: not allowed with the gains report/,
    );
    expect(refuse({ protocols: 'all' })).toThrow(/protocols: not allowed with the gains report/);
    expect(() => parseExportRequest({ profile: 'acme', period: '2024', gains: { method: 'fifo' } })).toThrow(
      /gains: only allowed when reports include "gains"/,
    );
    expect(refuse({ gains: { taxYearStart: '02-30' } })).toThrow(/gains\.taxYearStart: no such day/);
    expect(refuse({ gains: { method: 'lofi' } })).toThrow(/gains\.method/);
  });
});
