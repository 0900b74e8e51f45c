/**
 * The project's simulator reached as if it were the real service: started on its own (as
 * `npm run simulator` does) and named by `PBS_BASE_URL`. Its answers say they are demo data, so
 * the files must say so too, exactly as those of `npm run demo`.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';

let dir: string;
let simulator: RunningSimulator;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-simulator-demo-'));
  simulator = await startSimulator({});
});
afterEach(async () => {
  await simulator.close();
  await rm(dir, { recursive: true, force: true });
});

async function fileEnding(suffix: string): Promise<string> {
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  const found = files.find((file) => file.endsWith(suffix));
  if (found === undefined) throw new Error(`no file ending ${suffix}`);
  return found;
}

describe('pbs-export run against a stand-alone simulator reached through PBS_BASE_URL', () => {
  it('marks the Read me and the manifest as DEMO DATA', async () => {
    const acme = simulator.profiles.find((profile) => profile.name === 'acme');
    if (acme === undefined) throw new Error('the simulator has no acme profile');
    const err: string[] = [];
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: (text: string) => err.push(text) },
      env: { PBS_BASE_URL: simulator.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret },
      now: () => new Date('2026-11-24T10:00:00.000Z'),
    };

    const code = await main(
      ['run', '--profile', 'acme', '--period', '2025-03', '--format', 'csv', '--out', dir],
      io,
    );

    expect({ code, stderr: err.join('') }).toEqual({ code: 0, stderr: expect.any(String) });
    const readme = await readFile(await fileEnding('README.txt'), 'utf8');
    expect(readme.replace(/^\uFEFF/, '')).toMatch(/^DEMO DATA, not a real portfolio/);
    const manifest = JSON.parse(await readFile(await fileEnding('manifest.json'), 'utf8'));
    expect([manifest.demo, manifest.notice]).toEqual([true, 'DEMO DATA, not a real portfolio']);
  });

  it('says so in a header on every answer, refusals included', async () => {
    const refused = await fetch(`${simulator.url}/v2/accounts`);
    const unknown = await fetch(`${simulator.url}/nowhere`);

    expect([refused.status, refused.headers.get('x-pbs-demo-data')]).toEqual([
      401,
      'simulator; not a real portfolio',
    ]);
    expect(unknown.headers.get('x-pbs-demo-data')).toBe('simulator; not a real portfolio');
  });
});
