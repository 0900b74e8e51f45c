/**
 * Rates files that would exhaust memory, given to the CLI as a user gives them (`run … --rates
 * FILE`, in its own process): a ZIP of 1 MiB that inflates to 1 GiB of zeros, once stating that
 * size in its directory and once hiding it behind a small one, and a file of 1 GiB. Each must be
 * refused with exit 2 naming the file and the limit, before the run starts, and the process's peak
 * memory (its max RSS, which it reports itself at exit) must stay far below what the file would
 * take: the ZIP is inflated no further than the limit, the file read no further.
 */
import { mkdtemp, open, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zerosZipBomb } from '../support/rates.ts';
import { recordFigures } from './support/figures.ts';
import { startCli } from './support/killed-runs.ts';
import { MAX_RSS_FILE_ENV } from './support/max-rss.ts';

const MAX_RSS = join(import.meta.dirname, 'support', 'max-rss.ts');
const GIB = 1024 ** 3;
/** Far below the 1 GiB the files hold, above a refused run's own needs (130-175 MB measured here). */
const RSS_LIMIT_MB = 300;

interface Case {
  name: string;
  file: string;
  write(path: string): Promise<void>;
  /** What stderr must say: the flag, the file, and the limit. */
  says: string;
}

const CASES: Case[] = [
  {
    name: 'a 1 MiB ZIP stating that it inflates to 1 GiB',
    file: 'eurofxref-hist.zip',
    write: (path) => writeFile(path, zerosZipBomb('eurofxref-hist.csv', 1024)),
    says: '--rates: rates file eurofxref-hist.zip: the entry eurofxref-hist.csv says it inflates to 1 GiB, more than 32 MiB, the most a rates file may hold',
  },
  {
    name: 'a 1 MiB ZIP hiding that it inflates to 1 GiB',
    file: 'eurofxref-hist.zip',
    write: (path) => writeFile(path, zerosZipBomb('eurofxref-hist.csv', 1024, 2 * 1024 * 1024)),
    says: '--rates: rates file eurofxref-hist.zip: the entry eurofxref-hist.csv inflates to more than 32 MiB, the most a rates file may hold',
  },
  {
    name: 'a file of 1 GiB',
    file: 'monthly_csv_2024-05.csv',
    // Sparse: 1 GiB to a reader, nothing on the disk.
    write: async (path) => {
      const handle = await open(path, 'w');
      await handle.truncate(GIB);
      await handle.close();
    },
    says: '--rates: rates file monthly_csv_2024-05.csv: holds more than 32 MiB, the most a rates file may hold',
  },
];

describe('CLI --rates files that would exhaust memory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-faults-rates-bomb-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each(CASES)('refuses $name with exit 2 naming the file and the limit, its memory bounded', async (c) => {
    const caseDir = await mkdtemp(join(dir, 'case-'));
    const path = join(caseDir, c.file);
    await c.write(path);
    expect((await stat(path)).size).toBeGreaterThan(0);
    const rssFile = join(caseDir, 'max-rss');
    const out = join(caseDir, 'out');
    const run = startCli(
      [
        'run',
        '--simulator',
        '--profile',
        'demo',
        '--period',
        '2025',
        '--report',
        'gains',
        '--rates',
        path,
        '--out',
        out,
      ],
      caseDir,
      { [MAX_RSS_FILE_ENV]: rssFile },
      ['--import', MAX_RSS],
    );
    const exit = await run.exited;
    const peakRssMb = Math.round(Number(await readFile(rssFile, 'utf8').catch(() => 'NaN')) / 1024);
    const started = /Using the embedded simulator/.test(run.output());
    const named = run.output().includes(c.says);
    recordFigures('badInput', `CLI --rates: ${c.name}`, {
      tried: 1,
      rejectedCleanly: exit.code === 2 && named && peakRssMb < RSS_LIMIT_MB ? 1 : 0,
      reachedService: started ? 1 : 0,
      crashed: exit.code === 2 || exit.code === 1 ? 0 : 1,
    });
    recordFigures('load', `CLI --rates: ${c.name}`, { peakRssMb });

    expect({ code: exit.code, named, started }, run.output()).toEqual({
      code: 2,
      named: true,
      started: false,
    });
    expect(peakRssMb).toBeLessThan(RSS_LIMIT_MB);
    await expect(stat(out)).rejects.toThrow(/ENOENT/);
  });
});
