/**
 * `render --time-zone` (issue 29): the dates of a snapshot's reports shown in another zone, while
 * the period, the summary's months and the totals stay those of the run's zone. The CLI runs as a
 * process (`bin/pbs-export.ts` under tsx) on the embedded simulator; the expectations come from the
 * run's own files and plain Date arithmetic.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Finished {
  code: number | null;
  stderr: string;
}

/** Runs `pbs-export` with `args` as a process, to its exit, with no service or AWS configured. */
async function cli(args: readonly string[], home: string): Promise<Finished> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && !name.startsWith('PBS_')) env[name] = value;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pbs-export.ts', ...args], {
    env: { ...env, HOME: home },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The file under `dir` whose name ends with `suffix`. */
async function fileEnding(dir: string, suffix: string): Promise<string> {
  const found = (await filesUnder(dir)).find((file) => file.endsWith(suffix));
  if (found === undefined) throw new Error(`no *${suffix} under ${dir}`);
  return found;
}

/**
 * A zoned datetime as the CSV writes it: the local date-time, then its offset column
 * (`2024-10-01T02:00:00.000,UTC+02:00`; the UTC column has no offset column).
 */
const ZONED = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?,UTC[+-]\d\d:\d\d/g;

/** The instant of a {@link ZONED} match. */
function instantOf(text: string): number {
  return Date.parse(text.replace(',UTC', ''));
}

/** Offset of `text` (`+01:00`, `-04:00`) in minutes. */
function offsetMinutes(text: string): number {
  const [, sign, hours, minutes] = /([+-])(\d\d):(\d\d)$/.exec(text) as RegExpExecArray;
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

/**
 * Offset of America/New_York at instant `ms`, by the US rule (UTC−5, UTC−4 from the second Sunday
 * of March 07:00 UTC to the first Sunday of November 06:00 UTC), worked out without a zone library.
 */
function newYorkOffset(ms: number): number {
  const year = new Date(ms).getUTCFullYear();
  const nthSunday = (month: number, nth: number, hourUtc: number) => {
    const first = new Date(Date.UTC(year, month, 1)).getUTCDay();
    const day = 1 + ((7 - first) % 7) + 7 * (nth - 1);
    return Date.UTC(year, month, day, hourUtc);
  };
  return ms >= nthSunday(2, 2, 7) && ms < nthSunday(10, 1, 6) ? -240 : -300;
}

/**
 * Checks the `report` CSV rendered into `out` against the run's in `ran`: the header names New
 * York where the run named Berlin, every zoned datetime is the same instant with New York's offset
 * and wall clock, and everything else on each row is the run's. Returns how many dates it checked.
 */
async function shownInNewYork(ran: string, out: string, report: string): Promise<number> {
  const before = (await readFile(await fileEnding(ran, `_${report}.csv`), 'utf8')).split('\n');
  const after = (await readFile(await fileEnding(out, `_${report}.csv`), 'utf8')).split('\n');
  expect(after.length).toBe(before.length);
  expect(after[0]).toBe((before[0] as string).replaceAll('(Europe/Berlin)', '(America/New_York)'));
  let dates = 0;
  for (let i = 1; i < before.length; i += 1) {
    const was = (before[i] as string).match(ZONED) ?? [];
    const is = (after[i] as string).match(ZONED) ?? [];
    expect(is.length).toBe(was.length);
    for (const [k, text] of is.entries()) {
      const instant = instantOf(was[k] as string);
      expect(instantOf(text)).toBe(instant);
      expect(offsetMinutes(text)).toBe(newYorkOffset(instant));
      const wall = new Date(instant + newYorkOffset(instant) * 60_000).toISOString().slice(0, 19);
      expect(text.slice(0, 19)).toBe(wall);
      dates += 1;
    }
    let k = 0;
    expect((after[i] as string).replace(ZONED, () => was[k++] as string)).toBe(before[i]);
  }
  return dates;
}

let dir: string;
let runDir: string;
let snapshot: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-render-zone-'));
  runDir = join(dir, 'run');
  const result = await cli(
    [
      ...['run', '--simulator', '--period', '2024-10', '--time-zone', 'Europe/Berlin'],
      ...['--report', 'transactions,movements,summary', '--format', 'csv', '--out', runDir],
    ],
    dir,
  );
  expect(result.code, result.stderr).toBe(0);
  snapshot = await fileEnding(runDir, '_snapshot.ndjson.gz');
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('render --time-zone', () => {
  it('shows every date of the run in the zone asked, the rows, months and totals unchanged', async () => {
    const out = join(dir, 'new-york');
    const result = await cli(
      ['render', '--snapshot', snapshot, '--time-zone', 'America/New_York', '--format', 'csv', '--out', out],
      dir,
    );
    expect(result.code, result.stderr).toBe(0);

    for (const report of ['transactions', 'movements']) {
      expect(await shownInNewYork(runDir, out, report)).toBeGreaterThan(0);
    }
    // The months of the summary and its totals are the run's (Europe/Berlin's).
    for (const summary of ['_summary_by_month.csv', '_summary_by_token.csv']) {
      expect(await readFile(await fileEnding(out, summary), 'utf8')).toBe(
        await readFile(await fileEnding(runDir, summary), 'utf8'),
      );
    }
    const readme = await readFile(await fileEnding(out, 'README.txt'), 'utf8');
    expect(readme).toContain(
      'dates shown in America/New_York; the period and its months are those of Europe/Berlin, the zone of the run',
    );
    const manifest = JSON.parse(await readFile(await fileEnding(out, 'manifest.json'), 'utf8'));
    expect(manifest.period).toMatchObject({ timeZone: 'Europe/Berlin', datesShownIn: 'America/New_York' });
    expect(manifest.request.timeZone).toBe('Europe/Berlin');
  }, 120_000);

  it('shows the gains disposals in the zone asked, the gains and the About sheet naming both zones', async () => {
    const ran = join(dir, 'gains-run');
    const flags = ['--report', 'transactions,gains', '--format', 'csv,xlsx'];
    const run = await cli(
      ['run', '--simulator', '--period', '2024-10', '--time-zone', 'Europe/Berlin', ...flags, '--out', ran],
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const out = join(dir, 'gains-new-york');
    const snapshotFile = await fileEnding(ran, '_snapshot.ndjson.gz');
    const result = await cli(
      ['render', '--snapshot', snapshotFile, '--time-zone', 'America/New_York', '--out', out],
      dir,
    );
    expect(result.code, result.stderr).toBe(0);

    expect(await shownInNewYork(ran, out, 'disposals')).toBeGreaterThan(0);
    for (const report of ['gains_summary', 'income', 'holdings']) {
      expect(await readFile(await fileEnding(out, `_${report}.csv`), 'utf8')).toBe(
        await readFile(await fileEnding(ran, `_${report}.csv`), 'utf8'),
      );
    }
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(await fileEnding(out, '.xlsx'));
    const about = workbook.getWorksheet('About');
    const rows: string[] = [];
    about?.eachRow((row) => {
      rows.push(`${row.getCell(1).text}: ${row.getCell(2).text}`);
    });
    expect(rows).toContain('Time zone: Europe/Berlin');
    expect(rows.find((row) => row.startsWith('Dates shown in: '))).toMatch(
      /^Dates shown in: dates shown in America\/New_York; the period and its months are those of Europe\/Berlin, the zone of the run/,
    );
  }, 180_000);

  it('refuses a zone that is not an IANA zone by --time-zone, writing nothing', async () => {
    const out = join(dir, 'nowhere');
    const result = await cli(
      ['render', '--snapshot', snapshot, '--time-zone', 'Nowhere/Zone', '--out', out],
      dir,
    );
    expect({ code: result.code, files: await filesUnder(out).catch(() => []) }).toEqual({
      code: 2,
      files: [],
    });
    expect(result.stderr).toMatch(/^error: --time-zone: expected an IANA time zone/);
  }, 60_000);
});
