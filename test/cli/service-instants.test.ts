/**
 * The CLI as a user runs it (`PBS_BASE_URL` or `--config`) against a loopback service that writes
 * its instants in the forms GAPS.md leaves open: date-bounds as calendar dates or cut to whole
 * seconds, dates as epoch seconds or without an offset, and a service that files a row under
 * another month's window. The service filters each search by its window itself, by the instants
 * the test knows (independent of the client); the expectations are those instants, read back
 * from the published CSV.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';

const KEY = 'pk_instants';
const SECRET = 'instants-secret';

/** The four transactions of October 2025, as instants (the truth the service holds). */
const OCTOBER = [
  '2025-10-02T09:00:00.000Z',
  '2025-10-15T12:00:00.000Z',
  '2025-10-31T08:00:00.000Z',
  '2025-10-31T23:30:00.500Z',
];

let dir: string;
let server: HostileServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-instants-cli-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A transaction whose `date` is the raw JSON token `dateToken`. */
function row(id: string, dateToken: string): string {
  return transactionText({ id, date: '@', amount: '"1"', value: '"10.00"' })
    .replace('"date":"@"', `"date":${dateToken}`)
    .replace('"lastModifiedDate":"@"', `"lastModifiedDate":${dateToken}`);
}

/**
 * A service holding `rows` (each with its true instant), that answers a search with the rows
 * whose instant `file` puts inside the search's `[startDate, endDate)`.
 */
async function serviceOf(
  dateBounds: string,
  rows: { text: string; at: string }[],
  file: (at: number) => number = (at) => at,
): Promise<HostileServer> {
  const byText = new Map(rows.map((r) => [r.text, Date.parse(r.at)]));
  return startHostileServer({
    dateBounds,
    transactions: rows.map((r) => r.text),
    select: (query, items) => {
      const start = Date.parse(query.get('startDate') ?? '');
      const end = Date.parse(query.get('endDate') ?? '');
      return items.filter((item) => {
        const at = file(byText.get(item) as number);
        return at >= start && at < end;
      });
    },
  });
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function runCli(options: {
  config?: object;
  period?: string;
  now?: string;
  flags?: string[];
  format?: string;
}): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const env: Record<string, string> = { PBS_API_KEY: KEY, PBS_API_SECRET: SECRET };
  const flags: string[] = [...(options.flags ?? [])];
  if (options.config === undefined) env.PBS_BASE_URL = server?.url ?? '';
  else {
    const file = join(dir, 'service.json');
    await writeFile(file, JSON.stringify({ baseUrl: server?.url, ...options.config }));
    flags.push('--config', file);
  }
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    now: () => new Date(options.now ?? '2026-11-26T10:00:00.000Z'),
  };
  const argv = [
    'run',
    '--profile',
    'acme',
    '--period',
    options.period ?? '2025-10',
    '--format',
    options.format ?? 'csv',
    '--out',
    join(dir, 'out'),
    ...flags,
  ];
  const code = await main(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function files(): Promise<string[]> {
  const root = join(dir, 'out');
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** The published transactions' UTC dates, in file order (the CSV writes UTC wall times without `Z`). */
async function exportedDates(): Promise<string[]> {
  const file = (await files()).find((name) => name.endsWith('_transactions.csv'));
  if (file === undefined) throw new Error('no transactions CSV published');
  const rows = parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[];
  const utc = Object.keys(rows[0] ?? {}).find((column) => /date.*utc/i.test(column)) ?? 'date_utc';
  return rows.map((r) => `${r[utc]}Z`);
}

async function manifest(): Promise<{ counts: Record<string, number> } & Record<string, unknown>> {
  const file = (await files()).find((name) => name.endsWith('manifest.json'));
  if (file === undefined) throw new Error('no manifest published');
  return JSON.parse(await readFile(file, 'utf8'));
}

async function manifestCount(): Promise<number> {
  return (await files()).filter((name) => name.endsWith('manifest.json')).length;
}

const isoRows = () => OCTOBER.map((at, n) => ({ text: row(`tx-${n}`, JSON.stringify(at)), at }));

describe('pbs-export run against date-bounds written as calendar dates', () => {
  it('exports all 4 October transactions, those of 31 October included', async () => {
    server = await serviceOf('{"earliestDate":"2025-10-01","latestDate":"2025-10-31"}', isoRows());

    const run = await runCli({});

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(OCTOBER);
  });
});

describe('pbs-export run against date-bounds cut to whole seconds', () => {
  it('exports the last transaction at 23:30:00.500 although the latest bound says 23:30:00', async () => {
    server = await serviceOf(
      '{"earliestDate":"2025-10-02T09:00:00Z","latestDate":"2025-10-31T23:30:00Z"}',
      isoRows(),
    );

    const run = await runCli({});

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(OCTOBER);
  });
});

describe('pbs-export run against a service writing dates as epoch seconds', () => {
  const bounds = '{"earliestDate":"2025-10-01T00:00:00Z","latestDate":"2025-10-31T23:59:59Z"}';
  const epochRows = () =>
    OCTOBER.map((at, n) => ({ text: row(`tx-${n}`, String(Date.parse(at) / 1000)), at }));

  it('fails with exit 1, naming the date and the epochUnit setting, and publishes nothing', async () => {
    server = await serviceOf(bounds, epochRows());

    const run = await runCli({});

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/date: .*1970.*epochUnit to "seconds"/);
    expect(await manifestCount()).toBe(0);
  });

  it('exports all 4 transactions with shape.instants.epochUnit "seconds"', async () => {
    server = await serviceOf(bounds, epochRows());

    const run = await runCli({ config: { shape: { instants: { epochUnit: 'seconds' } } } });

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(OCTOBER);
  });
});

describe('pbs-export run on a machine in New York against dates written without an offset', () => {
  const bounds = '{"earliestDate":"2025-10-01T00:00:00Z","latestDate":"2025-10-31T23:59:59Z"}';
  // The service writes UTC wall-clock times without saying so.
  const offsetless = () =>
    OCTOBER.map((at, n) => ({ text: row(`tx-${n}`, JSON.stringify(at.replace('Z', ''))), at }));
  let zone: string | undefined;
  beforeEach(() => {
    zone = process.env.TZ;
    process.env.TZ = 'America/New_York';
  });
  afterEach(() => {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  });

  it('fails with exit 1, naming the date and the offsetlessZone setting, when no zone is configured', async () => {
    server = await serviceOf(bounds, offsetless());

    const run = await runCli({});

    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/date: .*has no offset.*shape\.instants\.offsetlessZone/);
    expect(await manifestCount()).toBe(0);
  });

  it('exports all 4 transactions at their UTC instants with shape.instants.offsetlessZone "UTC"', async () => {
    server = await serviceOf(bounds, offsetless());

    const run = await runCli({ config: { shape: { instants: { offsetlessZone: 'UTC' } } } });

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(OCTOBER);
  });
});
describe('pbs-export run against a service that files a row under the next month', () => {
  // The service compares its own wall clock (UTC+2) with the window: 30 September 23:00 UTC is
  // 1 October there, so only the October search returns that row.
  const rows = [
    '2025-09-10T12:00:00.000Z',
    '2025-09-30T23:00:00.000Z',
    '2025-10-15T12:00:00.000Z',
    '2025-10-31T12:00:00.000Z',
  ].map((at, n) => ({ text: row(`tx-${n}`, JSON.stringify(at)), at }));
  const bounds = '{"earliestDate":"2025-09-10T12:00:00Z","latestDate":"2025-10-31T12:00:00Z"}';

  it('keeps the 30 September row, inside the period, although the October search returned it', async () => {
    server = await serviceOf(bounds, rows, (at) => at + 2 * 3_600_000);

    const run = await runCli({ period: '2025-09-01..2025-10-31' });

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(rows.map((r) => r.at));
    expect((await manifest()).counts.keptFromOtherWindow).toBe(1);
  });

  it('feeds the gains history every row in date order, the moved one included', async () => {
    server = await serviceOf(bounds, rows, (at) => at + 2 * 3_600_000);

    const run = await runCli({ period: '2025-09-01..2025-10-31', flags: ['--report', 'transactions,gains'] });

    expect(run.stderr).not.toMatch(/error/i);
    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(rows.map((r) => r.at));
  });

  it('drops a row the service returns outside the period, and counts it', async () => {
    server = await serviceOf(bounds, rows, (at) => at + 2 * 3_600_000);

    const run = await runCli({ period: '2025-10' });

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(rows.slice(2).map((r) => r.at));
    expect((await manifest()).counts.outsideWindowDropped).toBe(1);
  });
});

describe('pbs-export run of a month that is not over (today is 26 November 2026)', () => {
  const november = ['2026-11-02T09:00:00.000Z', '2026-11-20T12:00:00.000Z'];
  const novemberRows = () => november.map((at, n) => ({ text: row(`tx-${n}`, JSON.stringify(at)), at }));
  const bounds = '{"earliestDate":"2026-11-02T09:00:00.000Z","latestDate":"2026-11-20T12:00:00.000Z"}';

  it('marks the manifest, the Read me, the About sheet and the summary PARTIAL with the cut-off instant', async () => {
    server = await serviceOf(bounds, novemberRows());

    const run = await runCli({ period: '2026-11', now: '2026-11-26T10:00:00.000Z', format: 'csv,xlsx' });

    expect(run.code).toBe(0);
    expect(await exportedDates()).toEqual(november);
    const period = (await manifest()).period as { partial?: { cutOff: string; note: string } };
    expect(period.partial?.cutOff).toBe('2026-11-26T10:00:00.000Z');
    const readme = (await files()).find((name) => name.endsWith('README.txt')) as string;
    expect(await readFile(readme, 'utf8')).toMatch(/PARTIAL PERIOD.*up to 2026-11-26T10:00:00\.000Z/);
    expect(run.stdout).toMatch(/PARTIAL PERIOD.*up to 2026-11-26T10:00:00\.000Z/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile((await files()).find((name) => name.endsWith('.xlsx')) as string);
    const about: string[] = [];
    workbook.getWorksheet('About')?.eachRow((sheetRow) => {
      about.push(`${sheetRow.getCell(1).text}: ${sheetRow.getCell(2).text}`);
    });
    expect(about.find((line) => line.startsWith('PARTIAL PERIOD'))).toMatch(
      /up to 2026-11-26T10:00:00\.000Z/,
    );
  });

  it('marks nothing once the month is over', async () => {
    server = await serviceOf(bounds, novemberRows());

    const run = await runCli({ period: '2026-11', now: '2026-12-01T00:00:00.000Z' });

    expect(run.code).toBe(0);
    expect((await manifest()).period).not.toHaveProperty('partial');
    expect(run.stdout).not.toContain('PARTIAL');
  });
});
