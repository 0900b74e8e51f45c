/**
 * Issue 27's "done when", read from outside: the demo's US 2025 gains export through the CLI
 * against the simulator over HTTP, once as the service sent it and once with an adjustments file
 * resolving every case the demo plants (a transfer in from an outside exchange → cost-basis, a
 * spam airdrop → spam, stablecoin interest without a value → value, holdings from before the
 * history → missing-lots, the late move between own wallets → transfer-pair). The output CSVs are
 * read with csv-parse; the expected change of the BTC sale from before the history is computed
 * here from the first run's rows.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';

/** The planted cases of the demo (lib/simulator/story.ts), as the first run's warnings name them. */
const SALE_BEFORE_HISTORY = 'tx_01JKDJ2MXG00021M30C2V3EBCD';
const AT = { by: 'ana@example.com', at: '2026-11-24T09:00:00Z' };
const ADJUSTMENTS = {
  schema: 'pbs-export/adjustments@1',
  profile: 'demo',
  version: 1,
  adjustments: [
    {
      ...AT,
      id: 'kraken-btc',
      kind: 'cost-basis',
      txId: 'tx_01JPYBS6T000025C1FHQS0ZZ43',
      token: 'BTC',
      cost: '21000.00',
      acquiredAt: '2023-04-02T00:00:00Z',
      why: "Bought on the client's Kraken account",
    },
    { ...AT, id: 'spam-ethg', kind: 'spam', token: 'ETHG-CLAIM', why: 'Unsolicited airdrop' },
    {
      ...AT,
      id: 'usdc-interest',
      kind: 'value',
      txId: 'tx_01JXZSHX500002CW1FAR0YZ03V',
      token: 'USDC',
      value: '1250.00',
      why: 'Interest paid in USDC, valued at the peg',
    },
    {
      ...AT,
      id: 'btc-2019',
      kind: 'missing-lots',
      txId: SALE_BEFORE_HISTORY,
      lots: [
        {
          token: 'BTC',
          account: 'acc_95ec340e08c6',
          quantity: '2',
          cost: '7000.00',
          acquiredAt: '2019-03-01T12:00:00Z',
        },
      ],
      why: '2 BTC bought in 2019 for 7000 USD, before the service’s history',
    },
    {
      ...AT,
      id: 'eth-move',
      kind: 'transfer-pair',
      outTxId: 'tx_01K1GN31280002GM3MVDT78Q8X',
      inTxId: 'tx_01K1T05C1G0002GY11KHN4A6MH',
      why: 'One move between the client’s own wallets',
    },
  ],
};

type Row = Record<string, string>;
let dir: string;
let simulator: RunningSimulator;
let before: string;
let after: string;

/** Runs the demo's US 2025 gains export into `out`, with the extra arguments. */
async function runDemo(out: string, extra: string[] = []): Promise<string> {
  const demo = simulator.profiles.find((profile) => profile.name === 'demo');
  if (demo === undefined) throw new Error('the simulator has no demo profile');
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: { PBS_BASE_URL: simulator.url, PBS_API_KEY: demo.apiKey, PBS_API_SECRET: demo.apiSecret },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const args = ['run', '--profile', 'demo', '--period', '2025', '--report', 'gains', '--tax-rules', 'us'];
  const code = await main([...args, '--format', 'csv', '--out', out, ...extra], io);
  if (code !== 0) throw new Error(`the export ended with ${code}`);
  return out;
}

/** The file of a run's set whose name ends with `suffix`, as text. */
async function fileOf(out: string, suffix: string): Promise<string> {
  const files = await readdir(out, { recursive: true, withFileTypes: true });
  const file = files.find((entry) => entry.isFile() && entry.name.endsWith(suffix));
  if (file === undefined) throw new Error(`no file ending ${suffix}`);
  return readFile(join(file.parentPath, file.name), 'utf8');
}

const csv = async (out: string, suffix: string): Promise<Row[]> =>
  parse(await fileOf(out, suffix), { bom: true, columns: true }) as Row[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-demo-resolved-'));
  simulator = await startSimulator({ rateLimitPerSecond: 0 });
  const file = join(dir, 'adjustments-v1.json');
  await writeFile(file, JSON.stringify(ADJUSTMENTS, null, 2));
  before = await runDemo(join(dir, 'before'));
  after = await runDemo(join(dir, 'after'), ['--adjustments', file]);
}, 240_000);

afterAll(async () => {
  await simulator?.close();
  await rm(dir, { recursive: true, force: true });
});

it('plants one zero-basis and three unmatched-transfer warnings, all open without adjustments', async () => {
  const warnings = await csv(before, '_gains_warnings.csv');
  const planted = warnings.filter((w) => w.kind === 'zero-basis' || w.kind === 'unmatched-transfer');

  expect(planted.map((w) => [w.kind, w.token, w.quantity])).toEqual([
    ['zero-basis', 'BTC', '2'],
    ['unmatched-transfer', 'BTC', '0.5'],
    ['unmatched-transfer', 'ETH', expect.stringMatching(/^10\.\d+$/)],
    ['unmatched-transfer', 'ETH', expect.stringMatching(/^10\.\d+$/)],
  ]);
  expect(warnings.every((w) => w.resolution === undefined)).toBe(true);
});

it('resolves every planted warning, each row naming its adjustment; what stays open is explained in the Read me', async () => {
  const warnings = await csv(after, '_gains_warnings.csv');
  const resolvedBy = Object.fromEntries(
    warnings.map((w) => [`${w.kind} ${w.token} ${w.quantity}`, w.resolution]),
  );

  expect(resolvedBy).toMatchObject({
    'zero-basis BTC 2': 'resolved by btc-2019',
    'unmatched-transfer BTC 0.5': 'resolved by kraken-btc',
    'missing-value USDC 1250': 'resolved by usdc-interest',
    'missing-value ETHG-CLAIM 1000': 'resolved by spam-ethg',
    'missing-value ETHG-CLAIM 2000': 'resolved by spam-ethg',
  });
  const open = warnings.filter((w) => !w.resolution?.startsWith('resolved by '));
  const zeroOrUnmatched = open.filter((w) => w.kind === 'zero-basis' || w.kind === 'unmatched-transfer');
  expect(zeroOrUnmatched).toEqual([]);
  expect(
    warnings.filter((w) => w.kind === 'unmatched-transfer' && w.token === 'ETH').map((w) => w.resolution),
  ).toEqual(['resolved by eth-move', 'resolved by eth-move']);
  const readme = await fileOf(after, 'README.txt');
  for (const kind of new Set(open.map((w) => w.kind)))
    expect(readme).toMatch(new RegExp(`^\\s*${kind}: \\S.{40,}$`, 'm'));
});

it('gives the sale from before the history its 2019 lot: the realised gain falls by the 7000.00 cost and turns long-term', async () => {
  const rest = (rows: Row[]) =>
    rows.filter((r) => r.disposed_tx_id === SALE_BEFORE_HISTORY && r.token === 'BTC' && r.quantity === '2');
  const [zeroBasis] = rest(await csv(before, '_disposals_exact.csv'));
  const [lot2019] = rest(await csv(after, '_disposals_exact.csv'));

  // Without adjustments the 2 BTC no lot covered had a zero basis: the whole proceeds were gain.
  expect([zeroBasis?.cost_basis, zeroBasis?.acquired_tx_id, zeroBasis?.term]).toEqual(['0', '', 'short']);
  expect(zeroBasis?.gain_loss).toBe(zeroBasis?.proceeds);
  // By hand: the same proceeds (to the last of their 18 decimals), less the lot's 7000.00.
  const proceeds = new Big(zeroBasis?.proceeds ?? '0');
  expect(new Big(lot2019?.proceeds ?? '0').minus(proceeds).abs().lte('1e-17')).toBe(true);
  const expectedGain = proceeds.minus('7000.00');
  expect(new Big(lot2019?.gain_loss ?? '0').minus(expectedGain).abs().lte('1e-17')).toBe(true);
  expect([lot2019?.cost_basis, lot2019?.date_acquired, lot2019?.term, lot2019?.acquired_tx_id]).toEqual([
    '7000',
    '2019-03-01T12:00:00.000',
    'long',
    'adj:btc-2019:1',
  ]);
});

it('records the adjustments version and the sha256 of the file in the manifest', async () => {
  const manifest = JSON.parse(await fileOf(after, 'manifest.json'));
  const bytes = await readFile(join(dir, 'adjustments-v1.json'));

  expect(manifest.adjustments).toEqual({
    profile: 'demo',
    version: 1,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  });
});

it("states the change of net gain and income as the difference of the two runs' Gains summaries and Income reports, at the cent (issue 39, item 5)", async () => {
  // The TOTAL rows added up, as an accountant reads them off each run's reports.
  const totalOf = (rows: Row[], key: string) =>
    rows.filter((r) => r.token === 'TOTAL').reduce((sum, r) => sum.plus(r[key] ?? '0'), new Big(0));
  const gainChange = totalOf(await csv(after, '_gains_summary.csv'), 'net').minus(
    totalOf(await csv(before, '_gains_summary.csv'), 'net'),
  );
  const incomeChange = totalOf(await csv(after, '_income.csv'), 'value').minus(
    totalOf(await csv(before, '_income.csv'), 'value'),
  );
  const table = await csv(after, '_adjustments.csv');
  const change = (id: string) => table.find((r) => r.id === id)?.change;
  expect(change('(all) realised gain')).toBe(gainChange.toFixed(2));
  expect(change('(all) income')).toBe(incomeChange.toFixed(2));
  // Every amount at the cent, as the other reports show money.
  for (const row of table)
    for (const key of ['basis_given', 'value_set', 'change'])
      if ((row[key] ?? '') !== '') expect(row[key]).toMatch(/^-?\d+\.\d{2}$/);
});
