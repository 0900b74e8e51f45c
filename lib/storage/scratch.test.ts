import { readlinkSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  currentInstance,
  currentProcessOwner,
  hostTag,
  isDeadOwner,
  ownerTagOf,
  type ProcessOwner,
} from './owner.ts';
import { openScratch, scratchOwner } from './scratch.ts';

let parent: string;

beforeEach(async () => {
  parent = await mkdtemp(join(tmpdir(), 'pbs-scratch-test-'));
});

afterEach(async () => {
  await rm(parent, { recursive: true, force: true });
});

/** An owner on host `aaaaaaaa` as pid 100, for whom exactly the pids in `alive` run. */
function ownerWith(alive: number[]): ProcessOwner {
  return { host: 'aaaaaaaa', pid: 100, isAlive: (pid) => alive.includes(pid) };
}

describe('openScratch', () => {
  it('creates a folder named after its owner, readable by its owner only', async () => {
    const dir = await openScratch(parent, ownerWith([]));

    expect(dir).toMatch(/[/\\]pbs-export-aaaaaaaa-100-[A-Za-z0-9]{6}$/);
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('removes the scratch folders of dead processes of this host first, keeping live, foreign and other folders', async () => {
    const names = {
      dead: 'pbs-export-aaaaaaaa-201-Ab12Cd',
      live: 'pbs-export-aaaaaaaa-202-Ab12Cd',
      own: 'pbs-export-aaaaaaaa-100-Ab12Cd',
      otherHost: 'pbs-export-bbbbbbbb-201-Ab12Cd',
      unrelated: 'pbs-export-out-Ab12Cd',
    };
    for (const name of Object.values(names)) await mkdir(join(parent, name));
    await writeFile(join(parent, names.dead, 'part-0.ndjson.gz'), 'raw portfolio data');

    const dir = await openScratch(parent, ownerWith([202]));

    const left = (await readdir(parent)).filter((name) => join(parent, name) !== dir).sort();
    expect(left).toEqual([names.live, names.own, names.otherHost, names.unrelated].sort());
  });

  it('creates the parent folder when it does not exist', async () => {
    const dir = await openScratch(join(parent, 'not-yet'), ownerWith([]));

    expect((await stat(dir)).isDirectory()).toBe(true);
  });
});

describe('scratchOwner and isDeadOwner', () => {
  it('reads the host and pid from a scratch folder name, and nothing from other names', () => {
    expect(scratchOwner('pbs-export-0123abcd-4567-xY12z9')).toEqual({ host: '0123abcd', pid: 4567 });
    expect(scratchOwner('pbs-export-0123abcd-4567')).toBeNull();
    expect(scratchOwner('pbs-export-AbCdEf')).toBeNull();
  });

  it('judges this host only, never this process, and a live pid as alive', () => {
    const owner = ownerWith([7]);
    expect(isDeadOwner({ host: 'aaaaaaaa', pid: 8 }, owner)).toBe(true);
    expect(isDeadOwner({ host: 'aaaaaaaa', pid: 7 }, owner)).toBe(false);
    expect(isDeadOwner({ host: 'aaaaaaaa', pid: 100 }, owner)).toBe(false);
    expect(isDeadOwner({ host: 'bbbbbbbb', pid: 8 }, owner)).toBe(false);
  });

  it('sees this process alive and an exited child dead, through process.kill(pid, 0)', async () => {
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.once('exit', resolve));
    const owner = currentProcessOwner();

    expect(owner.isAlive(process.pid)).toBe(true);
    expect(owner.isAlive(child.pid as number)).toBe(false);
    expect(owner.host).toBe(hostTag((await import('node:os')).hostname()));
  });

  it('tells apart two containers with the same host name by their instance, even with the same pid', () => {
    const inA: ProcessOwner = { host: 'aaaaaaaa', pid: 7, instance: 'a', isAlive: (pid) => pid === 7 };
    const inB: ProcessOwner = { host: 'aaaaaaaa', pid: 7, instance: 'b', isAlive: (pid) => pid === 7 };

    expect(ownerTagOf(inA).host).toMatch(/^[0-9a-f]{8}$/);
    expect(ownerTagOf(inA)).not.toEqual(ownerTagOf(inB));
    expect(isDeadOwner({ ...ownerTagOf(inA), pid: 8 }, inB)).toBe(false);
    expect(isDeadOwner({ ...ownerTagOf(inB), pid: 8 }, inB)).toBe(true);
    expect(ownerTagOf({ host: 'aaaaaaaa', pid: 7, isAlive: () => true })).toEqual({
      host: 'aaaaaaaa',
      pid: 7,
    });
  });

  it("takes this process's instance from its machine id and pid namespace", () => {
    expect(currentInstance()).toContain(readlinkSync('/proc/self/ns/pid'));
    expect(currentProcessOwner().instance).toBe(currentInstance());
  });
});
