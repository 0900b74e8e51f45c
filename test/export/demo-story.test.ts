/**
 * The demo portfolio tells a coherent story, read from outside: the whole history exported from
 * the simulator over HTTP (the CLI against `PBS_BASE_URL`), its CSV files read with csv-parse,
 * and each property checked from the rows alone. Only the planted cases (one per kind of
 * adjustment) break it, each exactly once.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';
import { readCsv } from '../support/export.ts';

const STABLES = new Set(['USDC', 'USDT', 'DAI']);
const DAY_MS = 24 * 3_600_000;

interface Tx {
  id: string;
  date: string;
  category: string;
  subType: string;
  hash: string;
  account: string;
  feeSymbol: string;
  feeQuantity: string;
}

interface Movement {
  tx: Tx;
  token: string;
  amount: Big;
  value: string;
}

let dir: string;
let simulator: RunningSimulator;
let movements: Movement[];
let txs: Tx[];

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) out.set(key(item), [...(out.get(key(item)) ?? []), item]);
  return out;
}

async function csvEnding(suffix: string): Promise<Record<string, string>[]> {
  const files = await readdir(dir, { recursive: true, withFileTypes: true });
  const file = files.find((entry) => entry.isFile() && entry.name.endsWith(suffix));
  if (file === undefined) throw new Error(`no file ending ${suffix}`);
  return readCsv(join(file.parentPath, file.name));
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-demo-story-'));
  simulator = await startSimulator({ rateLimitPerSecond: 0 });
  const demo = simulator.profiles.find((profile) => profile.name === 'demo');
  if (demo === undefined) throw new Error('the simulator has no demo profile');
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: () => true },
    env: { PBS_BASE_URL: simulator.url, PBS_API_KEY: demo.apiKey, PBS_API_SECRET: demo.apiSecret },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const args = ['run', '--profile', 'demo', '--period', '2023-01-01..2025-12-31', '--format', 'csv'];
  const code = await main([...args, '--report', 'transactions,movements', '--out', dir], io);
  if (code !== 0) throw new Error(`the export ended with ${code}`);
  txs = (await csvEnding('_transactions.csv')).map((row) => ({
    id: row.id ?? '',
    date: row.date_utc ?? '',
    category: row.category ?? '',
    subType: row.sub_type ?? '',
    hash: row.hash ?? '',
    account: row.account_id ?? '',
    feeSymbol: row.fee_symbol ?? '',
    feeQuantity: row.fee_quantity ?? '',
  }));
  const byId = new Map(txs.map((tx) => [tx.id, tx]));
  movements = (await csvEnding('_movements.csv')).map((row) => {
    const tx = byId.get(row.transaction_id ?? '');
    if (tx === undefined) throw new Error(`movement of an unknown transaction ${row.transaction_id}`);
    return { tx, token: row.token ?? '', amount: new Big(row.amount ?? ''), value: row.value ?? '' };
  });
}, 120_000);

afterAll(async () => {
  await simulator.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the demo portfolio (whole history, read from its CSV files)', () => {
  it('never holds less than zero of a token in an account, but for the holdings from before its history', () => {
    const balances = new Map<string, Big>();
    const lowest = new Map<string, { balance: Big; tx: Tx }>();
    const change = (tx: Tx, token: string, amount: Big) => {
      const key = `${tx.account} ${token}`;
      const balance = (balances.get(key) ?? new Big(0)).plus(amount);
      balances.set(key, balance);
      if (balance.lt(lowest.get(key)?.balance ?? 0)) lowest.set(key, { balance, tx });
    };
    // Rows come in date order, and inside a transaction the fee leaves after the movements.
    const byTx = groupBy(movements, (m) => m.tx.id);
    for (const tx of txs) {
      for (const m of byTx.get(tx.id) ?? []) change(tx, m.token, m.amount);
      if (tx.feeQuantity !== '' && tx.feeQuantity !== '0')
        change(tx, tx.feeSymbol, new Big(tx.feeQuantity).neg());
    }
    const negative = [...lowest.entries()].map(([key, low]) => ({
      token: key.split(' ')[1],
      lowest: low.balance.toString(),
      at: `${low.tx.category}/${low.tx.subType} ${low.tx.date.slice(0, 4)}`,
    }));
    // Cold storage sells 2 BTC it held before the service's history starts.
    expect(negative).toEqual([{ token: 'BTC', lowest: '-2', at: 'trade/sell 2025' }]);
  });

  it('values stablecoins at their peg, but for the one movement whose value is missing', () => {
    const stable = movements.filter((m) => STABLES.has(m.token));
    const missing = stable.filter((m) => m.value === '');
    const offPeg = stable.filter(
      (m) =>
        m.value !== '' &&
        new Big(m.value).minus(m.amount).abs().gt(m.amount.abs().times('0.01').plus('0.01')),
    );
    expect(stable.length).toBeGreaterThan(500);
    expect(offPeg.map((m) => `${m.tx.id} ${m.token} ${m.amount} ${m.value}`)).toEqual([]);
    expect(missing.map((m) => `${m.tx.category}/${m.tx.subType} ${m.token} ${m.amount}`)).toEqual([
      'income/interest USDC 1250',
    ]);
  });

  it('receives a spam token, never valued and never given away', () => {
    const known = new Set(['ETH', 'USDC', 'BTC', 'WBTC', 'DAI', 'SOL', 'stETH', 'USDT', 'USD']);
    const spam = movements.filter((m) => !known.has(m.token));
    expect(new Set(spam.map((m) => m.token)).size).toBe(1);
    expect(spam.map((m) => [m.amount.gt(0), m.value])).toEqual([
      [true, ''],
      [true, ''],
    ]);
  });

  it('pairs every move between own accounts (same hash, out and in, within a day), but for the planted two', () => {
    const transfers = movements.filter(
      (m) => (m.tx.category === 'transfer' || m.tx.category === 'bridge') && m.token !== 'USD',
    );
    const sides = groupBy(transfers, (m) => `${m.tx.hash} ${m.token}`);
    const unpaired: string[] = [];
    for (const group of sides.values()) {
      const [out, into] = [group.filter((m) => m.amount.lt(0)), group.filter((m) => m.amount.gt(0))];
      const paired =
        out.length === 1 &&
        into.length === 1 &&
        out[0]?.amount.neg().eq(into[0]?.amount ?? 0) === true &&
        out[0]?.tx.account !== into[0]?.tx.account &&
        Math.abs(Date.parse(into[0]?.tx.date ?? '') - Date.parse(out[0]?.tx.date ?? '')) <= DAY_MS;
      if (paired) continue;
      const gap = into[0] && out[0] ? Date.parse(into[0].tx.date) - Date.parse(out[0].tx.date) : Number.NaN;
      unpaired.push(
        `${out.length} out ${into.length} in ${group[0]?.token} ${gap > DAY_MS ? 'days apart' : ''}`,
      );
    }
    expect(sides.size).toBeGreaterThan(200);
    // A deposit from the client's account at an outside exchange, and a move whose in side came 3 days later.
    expect(unpaired.sort()).toEqual(['0 out 1 in BTC ', '1 out 1 in ETH days apart']);
  });
});

describe('the demo year’s gains warnings (us, 2025)', () => {
  it('are the planted cases only, each row saying what the data points at', async () => {
    const out = await mkdtemp(join(tmpdir(), 'pbs-demo-warnings-'));
    try {
      const demo = simulator.profiles.find((profile) => profile.name === 'demo');
      const io: CliIo = {
        stdout: { write: () => true },
        stderr: { write: () => true },
        env: { PBS_BASE_URL: simulator.url, PBS_API_KEY: demo?.apiKey, PBS_API_SECRET: demo?.apiSecret },
        now: () => new Date('2026-11-24T10:00:00.000Z'),
      };
      const args = ['run', '--profile', 'demo', '--period', '2025', '--report', 'gains', '--tax-rules', 'us'];
      expect(await main([...args, '--format', 'csv', '--out', out], io)).toBe(0);
      const files = await readdir(out, { recursive: true, withFileTypes: true });
      const file = files.find((entry) => entry.name.endsWith('_gains_warnings.csv'));
      const rows = await readCsv(join(file?.parentPath ?? '', file?.name ?? ''));
      const words = rows.map((row) => [
        row.kind,
        row.token,
        row.suggestion?.replace(/\(proposed adjustment .*\)$/, ''),
      ]);
      expect(words).toEqual([
        ['zero-basis', 'BTC', ''],
        ['unmatched-transfer', 'BTC', ''],
        [
          'missing-value',
          'ETHG-CLAIM',
          expect.stringMatching(/^Mark ETHG-CLAIM as spam: only ever received \(2 times\)/),
        ],
        [
          'missing-value',
          'USDC',
          'Value 1250 USDC at the peg: 1250.00 USD (1 USDC = 1 USD, not a market price) ',
        ],
        [
          'unmatched-transfer',
          'ETH',
          expect.stringMatching(/same hash, \d days apart: beyond the pairing tolerance of 24 hours $/),
        ],
        [
          'unmatched-transfer',
          'ETH',
          expect.stringMatching(/same hash, \d days apart: beyond the pairing tolerance of 24 hours $/),
        ],
        ['missing-value', 'ETHG-CLAIM', expect.stringMatching(/^Mark ETHG-CLAIM as spam/)],
      ]);
      // Both sides of the late move name the same proposal: one pair, out then in.
      const pairIds = rows
        .filter((row) => row.kind === 'unmatched-transfer' && row.token === 'ETH')
        .map((row) => row.suggestion?.match(/proposed adjustment (\S+)\)$/)?.[1]);
      const [outSide, inSide] = rows.filter(
        (row) => row.kind === 'unmatched-transfer' && row.token === 'ETH',
      );
      expect(pairIds).toEqual([
        `suggested:transfer-pair:${outSide?.transaction_id}:${inSide?.transaction_id}`,
        `suggested:transfer-pair:${outSide?.transaction_id}:${inSide?.transaction_id}`,
      ]);
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }, 120_000);
});
