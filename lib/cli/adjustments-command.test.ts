import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAdjustmentsStore } from '../adjustments/index.ts';
import { type CliIo, main } from './main.ts';

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

describe('pbs-export adjustments', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-adjustments-cli-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('adds adjustments and opening lots as new versions, keeping the earlier ones', async () => {
    const spam = join(dir, 'spam.json');
    await writeFile(
      spam,
      JSON.stringify({
        id: 's1',
        kind: 'spam',
        token: 'SCAM',
        by: 'ann',
        at: '2026-11-21T09:00:00Z',
        why: 'airdrop',
      }),
    );
    const lots = join(dir, 'lots.csv');
    await writeFile(lots, 'token,account,quantity,cost,acquired_at\nBTC,cold,2,7000,2019-05-01\n');
    const store = join(dir, 'store');
    const first = captureIo();
    expect(await main(['adjustments', '--profile', 'acme', '--dir', store, '--add', spam], first.io)).toBe(0);
    expect(first.stdout()).toContain('adjustments-v1.json: version 1, 1 adjustment(s)');
    const second = captureIo();
    const args = ['--lots-csv', lots, '--id', 'o1', '--by', 'ann', '--why', 'closing lots of 2023'];
    expect(await main(['adjustments', '--profile', 'acme', '--dir', store, ...args], second.io)).toBe(0);
    expect((await readdir(join(store, 'acme'))).sort()).toEqual([
      'adjustments-v1.json',
      'adjustments-v2.json',
    ]);
    const latest = await createFileAdjustmentsStore(store).latest('acme');
    expect(latest?.document.adjustments.map((a) => a.id)).toEqual(['s1', 'o1']);
    expect(latest?.document.adjustments[1]).toMatchObject({
      kind: 'opening-lots',
      at: '2026-11-22T10:00:00.000Z',
      lots: [
        { token: 'BTC', account: 'cold', quantity: '2', cost: '7000', acquiredAt: '2019-05-01T00:00:00Z' },
      ],
    });
  });

  it('refuses a contradicting addition with exit 1 naming both adjustments, and writes no version', async () => {
    const again = join(dir, 'again.json');
    await writeFile(
      again,
      JSON.stringify([
        { id: 's2', kind: 'spam', token: 'SCAM', by: 'bob', at: '2026-11-21T09:00:00Z', why: 'x' },
      ]),
    );
    const io = captureIo();
    expect(
      await main(['adjustments', '--profile', 'acme', '--dir', join(dir, 'store'), '--add', again], io.io),
    ).toBe(1);
    expect(io.stderr()).toContain('adjustments s1 and s2 contradict: SCAM is marked as spam twice');
    expect(await readdir(join(dir, 'store', 'acme'))).toHaveLength(2);
  });
});
