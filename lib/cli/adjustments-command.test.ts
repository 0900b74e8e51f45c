import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
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

  it('goes on after the empty file a killed write left under a version name, warning about it by name', async () => {
    const store = join(dir, 'killed');
    const spam = join(dir, 'scam.json');
    await writeFile(
      spam,
      JSON.stringify({
        id: 's1',
        kind: 'spam',
        token: 'SCAM',
        by: 'ann',
        at: '2026-11-21T09:00:00Z',
        why: 'x',
      }),
    );
    expect(
      await main(['adjustments', '--profile', 'acme', '--dir', store, '--add', spam], captureIo().io),
    ).toBe(0);
    const empty = join(store, 'acme', 'adjustments-v2.json');
    await writeFile(empty, '');
    const warning = `warning: ${empty} is empty: a write cut off by a kill or a crash left it, and it holds no version: the versions skip it (the next is numbered after it); delete it\n`;

    const listed = captureIo();
    expect(await main(['adjustments', '--profile', 'acme', '--dir', store], listed.io)).toBe(0);
    expect(listed.stdout()).toContain(
      `${join(store, 'acme', 'adjustments-v1.json')}: version 1, 1 adjustment(s)`,
    );
    expect(listed.stderr()).toBe(warning);

    const fake = join(dir, 'fake.json');
    await writeFile(fake, (await readFile(spam, 'utf8')).replace('"s1"', '"s2"').replace('SCAM', 'FAKE'));
    const added = captureIo();
    expect(await main(['adjustments', '--profile', 'acme', '--dir', store, '--add', fake], added.io)).toBe(0);
    expect(added.stdout()).toContain(
      `${join(store, 'acme', 'adjustments-v3.json')}: version 3, 2 adjustment(s)`,
    );
    expect(added.stderr()).toBe(warning);
  });

  it('exits 1 naming a version file that cannot be read and what to do', async () => {
    const store = join(dir, 'cut');
    await mkdir(join(store, 'acme'), { recursive: true });
    const cut = join(store, 'acme', 'adjustments-v1.json');
    await writeFile(cut, '{\n  "schema": "pbs-export/adjustments@1",\n  "profile": "ac');
    const io = captureIo();
    expect(await main(['adjustments', '--profile', 'acme', '--dir', store], io.io)).toBe(1);
    expect(io.stderr()).toContain(
      `error: adjustments file ${cut} cannot be read as a version: not JSON text (`,
    );
    expect(io.stderr()).toContain(
      `move it out of ${join(store, 'acme')} (the version before it is then the latest)`,
    );
  });

  it('run --adjustments names the file that is not an adjustments document', async () => {
    const bad = join(dir, 'bad-adjustments.json');
    await writeFile(bad, '');
    const io = captureIo();
    const run = ['run', '--simulator', '--profile', 'demo', '--period', '2025', '--report', 'gains'];
    expect(await main([...run, '--adjustments', bad, '--out', join(dir, 'out')], io.io)).toBe(1);
    expect(io.stderr()).toContain(
      `error: adjustments file ${bad} cannot be read as a version: not JSON text (`,
    );
    expect(io.stderr()).toContain('correct the file');
  });

  it('withdraws an adjustment as a new version that records who, when and why; later versions keep the record', async () => {
    const store = join(dir, 'withdraw');
    const two = join(dir, 'two.json');
    const spam = (id: string, token: string) => ({
      id,
      kind: 'spam',
      token,
      by: 'ann',
      at: '2026-11-21T09:00:00Z',
      why: 'airdrop',
    });
    await writeFile(two, JSON.stringify([spam('s1', 'SCAM'), spam('s2', 'FAKE')]));
    const cli = async (...args: string[]) => {
      const io = captureIo();
      const code = await main(['adjustments', '--profile', 'acme', '--dir', store, ...args], io.io);
      return { code, stdout: io.stdout(), stderr: io.stderr() };
    };
    expect((await cli('--add', two)).code).toBe(0);

    const withdrawn = await cli('--withdraw', 's1', '--by', 'bob', '--why', 'SCAM has a market after all');

    expect([withdrawn.code, withdrawn.stderr]).toEqual([0, '']);
    expect(withdrawn.stdout).toContain('withdrew s1: ');
    expect(withdrawn.stdout).toContain('adjustments-v2.json: version 2, 1 adjustment(s)');
    const v1 = JSON.parse(await readFile(join(store, 'acme', 'adjustments-v1.json'), 'utf8'));
    const v2 = JSON.parse(await readFile(join(store, 'acme', 'adjustments-v2.json'), 'utf8'));
    expect(v1.adjustments.map((a: { id: string }) => a.id)).toEqual(['s1', 's2']);
    expect(v2.adjustments.map((a: { id: string }) => a.id)).toEqual(['s2']);
    expect(v2.withdrawn).toEqual([
      {
        adjustment: spam('s1', 'SCAM'),
        by: 'bob',
        at: '2026-11-22T10:00:00.000Z',
        why: 'SCAM has a market after all',
      },
    ]);

    const one = join(dir, 'one.json');
    await writeFile(one, JSON.stringify(spam('s3', 'JUNK')));
    expect((await cli('--add', one)).code).toBe(0);
    const v3 = JSON.parse(await readFile(join(store, 'acme', 'adjustments-v3.json'), 'utf8'));
    expect(v3.withdrawn).toEqual(v2.withdrawn);
  });

  it('refuses a withdrawal without --by or --why (exit 2), of an unknown or withdrawn id (exit 1)', async () => {
    const store = join(dir, 'withdraw');
    const cli = async (...args: string[]) => {
      const io = captureIo();
      const code = await main(['adjustments', '--profile', 'acme', '--dir', store, ...args], io.io);
      return { code, stderr: io.stderr() };
    };

    const noWhy = await cli('--withdraw', 's2', '--by', 'bob');
    const unknown = await cli('--withdraw', 'nope', '--by', 'bob', '--why', 'x');
    const again = await cli('--withdraw', 's1', '--by', 'bob', '--why', 'x');
    const both = await cli('--withdraw', 's2', '--add', 'x.json', '--by', 'bob', '--why', 'x');

    expect([noWhy.code, unknown.code, again.code, both.code]).toEqual([2, 1, 1, 2]);
    expect(noWhy.stderr).toContain('--why: is required with --withdraw');
    expect(unknown.stderr).toContain('the latest version has no adjustment nope');
    expect(again.stderr).toContain('s1 was withdrawn already, by bob at 2026-11-22T10:00:00.000Z');
    expect(both.stderr).toContain('give one of --add, --lots-csv and --withdraw');
  });
});
