/**
 * The journal's Beancount and hledger files checked by the accountants' own tools: Debian's
 * `hledger check --strict` (parse, balance, declared accounts and commodities, and every balance
 * assertion) and `bean-check` (balance of each transaction and every `balance` assertion), on the
 * demo year and on crafted histories. A copy with one month-end assertion changed must fail both,
 * so the assertions are really checked.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import type { LedgerFile } from '../../lib/ledger/types.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { leg, tx } from '../support/gains.ts';
import { OUTSIDE_HISTORY, runJournal, WALLETS_HISTORY } from '../support/journal.ts';
import { tool } from './support/tool.ts';

const hledgerCheck = (file: string) => tool('hledger', ['-f', file, 'check', '--strict']);
const beanCheck = (file: string) => tool('bean-check', [file]);

/** The file with its first month-end assertion's quantity changed (a digit put in front). */
function tampered(body: string, kind: 'hledger' | 'beancount'): string {
  const pattern = kind === 'hledger' ? /(= )(\d+(?:\.\d+)?)( )/ : /( balance \S+ {2})(\d+(?:\.\d+)?)( )/;
  return body.replace(
    pattern,
    (_m, before: string, quantity: string, after: string) => `${before}1${quantity}${after}`,
  );
}

/**
 * uk: a sale on 31 January matched with the buy-back of 5 February (30 days), a sale and a buy of
 * one day (same day), a sale from the section 104 pool, and gas paid in ETH on a day ETH is bought
 * (the same-day rule matches the fee with the dearer acquisition: value in, tokens out).
 */
const UK_HISTORY = [
  tx({ id: 'b1', date: '2025-01-05T10:00:00.000Z', movements: [leg('BTC', '10', '1000')] }),
  tx({ id: 's1', date: '2025-01-31T10:00:00.000Z', movements: [leg('BTC', '-4', '-2000')] }),
  tx({ id: 'b2', date: '2025-02-05T10:00:00.000Z', movements: [leg('BTC', '4', '2400')] }),
  tx({ id: 's2', date: '2025-03-10T10:00:00.000Z', movements: [leg('BTC', '-5', '-2500')] }),
  tx({ id: 'b3', date: '2025-03-10T15:00:00.000Z', movements: [leg('BTC', '2', '1200')] }),
  tx({ id: 'e1', date: '2025-04-01T10:00:00.000Z', movements: [leg('ETH', '10', '10')] }),
  tx({
    id: 'e2',
    date: '2025-04-20T10:00:00.000Z',
    movements: [leg('BTC', '-1', '-600'), leg('ETH', '0.001', '50')],
    feeAmount: '40',
    feeSymbol: 'ETH',
    feeQuantity: '0.01',
  }),
  tx({ id: 's3', date: '2025-06-15T10:00:00.000Z', movements: [leg('BTC', '-3', '-2100')] }),
];

/** The cells of a CSV line (quoted cells may hold commas). */
const cells = (line: string): string[] =>
  [...line.matchAll(/("(?:[^"]|"")*"|[^,]*)(?:,|$)/g)].map((m) => m[1] as string).slice(0, -1);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-tools-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function writeFiles(prefix: string, files: readonly LedgerFile[]): Promise<Record<string, string>> {
  const paths: Record<string, string> = {};
  for (const file of files) {
    const path = join(dir, `${prefix}-${file.name}`);
    await writeFile(path, file.body);
    paths[file.name] = path;
  }
  return paths;
}

async function expectChecksPass(hledgerFile: string, beancountFile: string) {
  const h = await hledgerCheck(hledgerFile);
  expect(h.output).toBe('');
  expect(h.code).toBe(0);
  const b = await beanCheck(beancountFile);
  expect(b.output).toBe('');
  expect(b.code).toBe(0);
}

async function expectTamperedFails(hledgerFile: string, beancountFile: string) {
  const h = `${hledgerFile}.tampered`;
  await writeFile(h, tampered(await readFile(hledgerFile, 'utf8'), 'hledger'));
  const hResult = await hledgerCheck(h);
  expect(hResult.code).not.toBe(0);
  expect(hResult.output).toMatch(/balance assertion/i);
  const b = `${beancountFile}.tampered`;
  await writeFile(b, tampered(await readFile(beancountFile, 'utf8'), 'beancount'));
  const bResult = await beanCheck(b);
  expect(bResult.code).not.toBe(0);
  expect(bResult.output).toMatch(/Balance failed/);
}

describe('journal files of crafted histories, checked by hledger and bean-check', () => {
  it.each([
    [
      'own wallets, a partial sale, income and gas in a token',
      WALLETS_HISTORY,
      { gains: { pooling: 'account' }, journal: { chart: { asset: { perWallet: true } } } },
    ],
    [
      'the same rolled up per month',
      WALLETS_HISTORY,
      { gains: { pooling: 'account' }, journal: { rollup: true, chart: { asset: { perWallet: true } } } },
    ],
    ['a withdrawal to outside with gas as a fee, and income', OUTSIDE_HISTORY, {}],
    [
      'HMRC identification: a same-day match, a bed and breakfast across a month end, section 104',
      UK_HISTORY,
      { gains: { taxRules: 'uk', currency: 'USD' } },
    ],
    [
      'HMRC identification, rolled up per month',
      UK_HISTORY,
      { gains: { taxRules: 'uk', currency: 'USD' }, journal: { rollup: true } },
    ],
  ])('%s', async (name, history, extra) => {
    const { files } = await runJournal(history, extra);
    const paths = await writeFiles(name.replace(/\W+/g, '-'), files);
    await expectChecksPass(paths['journal.hledger'] as string, paths['journal.beancount'] as string);
    await expectTamperedFails(paths['journal.hledger'] as string, paths['journal.beancount'] as string);
  });
});

describe('journal files of the demo year under HMRC identification (uk rules), checked by hledger and bean-check', () => {
  let harness: ExportHarness;
  let folder: string;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['journal'],
        formats: ['csv'],
        // The demo's values are in USD: computed in them (the CLI's --gains-currency USD).
        gains: { taxRules: 'uk', currency: 'USD' },
      }),
      harness.deps(),
    );
    folder = join(harness.outDir, result.prefix);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('ties out, and both tools accept the journals with their month-end assertions', async () => {
    const hledgerFile = join(folder, 'demo_2025_journal.hledger');
    const beancountFile = join(folder, 'demo_2025_journal.beancount');
    await expectChecksPass(hledgerFile, beancountFile);
    await expectTamperedFails(hledgerFile, beancountFile);
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
    expect(manifest.journal.checks.every((check: { ok: boolean }) => check.ok)).toBe(true);
    // The journal's realised gain is the gains summary's total (its rows summed here).
    const summary = (await readFile(join(folder, 'demo_2025_disposals.csv'), 'utf8')).replace(/^\uFEFF/, '');
    const [header, ...lines] = summary.trim().split('\n');
    const gain = cells(header as string).indexOf('gain_loss');
    expect(gain).toBeGreaterThan(-1);
    const total = lines.reduce((sum, line) => sum + Math.round(Number(cells(line)[gain]) * 100), 0);
    expect(lines.length).toBeGreaterThan(0);
    expect((total / 100).toFixed(2)).toBe(manifest.journal.totals.realisedGain);
  });
});

describe('journal files of the demo year, checked by hledger and bean-check', () => {
  let harness: ExportHarness;
  let folder: string;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025', reports: ['journal'], formats: ['csv'] }),
      harness.deps(),
    );
    folder = join(harness.outDir, result.prefix);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('writes every format, and both tools accept the journals with their month-end assertions', async () => {
    const files = await readdir(folder);
    expect(files).toEqual(
      expect.arrayContaining([
        'demo_2025_journal.csv',
        'demo_2025_journal.beancount',
        'demo_2025_journal.hledger',
      ]),
    );
    const hledgerFile = join(folder, 'demo_2025_journal.hledger');
    const beancountFile = join(folder, 'demo_2025_journal.beancount');
    await expectChecksPass(hledgerFile, beancountFile);
    await expectTamperedFails(hledgerFile, beancountFile);
    // hledger's realised gain and income agree with the manifest's tie-out figures.
    const manifest = JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));
    const gain = await tool('hledger', [
      '-f',
      hledgerFile,
      'bal',
      '-N',
      '--no-elide',
      'Realised',
      '--flat',
      '-O',
      'csv',
    ]);
    const net = gain.output
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '')
      .reduce((sum, line) => sum - Number(line.split(',')[1]?.replace(/[^0-9.-]/g, '')), 0);
    expect(net.toFixed(2)).toBe(Number(manifest.journal.totals.realisedGain).toFixed(2));
  });

  it("makes hledger's carrying values at the period end equal the holdings roll-forward's closing cost", async () => {
    const costs = await tool('hledger', [
      '-f',
      join(folder, 'demo_2025_journal.hledger'),
      'bal',
      'Assets:Crypto',
      '--cost',
      // Accounts at zero too (a token held at no cost), which hledger hides otherwise.
      '--empty',
      '--flat',
      '-N',
      '-O',
      'csv',
    ]);
    const byAccount = Object.fromEntries(
      costs.output
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => line.replace(/"/g, '').split(','))
        .map(([account, balance]) => [account, balance?.replace('USD ', '')]),
    );
    const holdings = (await readFile(join(folder, 'demo_2025_holdings.csv'), 'utf8')).replace(/^\uFEFF/, '');
    const [header, ...lines] = holdings.trim().split('\n');
    const columns = (header as string).split(',');
    const token = columns.indexOf('token');
    const closing = columns.indexOf('closing_cost');
    const expected = Object.fromEntries(
      lines.map((line) => line.split(',')).map((cells) => [cells[token] as string, cells[closing] as string]),
    );
    expect(Object.keys(expected).length).toBeGreaterThan(0);
    for (const [symbol, cost] of Object.entries(expected)) {
      const account = `Assets:Crypto:${symbol.charAt(0).toUpperCase()}${symbol.slice(1)}`;
      // hledger writes a zero balance as 0.
      const balance = byAccount[account];
      expect([account, balance === '0' ? '0.00' : balance]).toEqual([account, cost]);
    }
  });
});
