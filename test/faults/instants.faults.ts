/**
 * The service's instants in every form GAPS.md leaves open, swept through the CLI as a user runs
 * it: date-bounds as calendar dates or cut to whole seconds, a row filed under the next month's
 * window, dates as epoch seconds or without an offset on a machine in New York, and a month not
 * over yet. The loopback service filters each search by the instants the test knows; each case
 * ends with every transaction of the period published (or a clean refusal naming the setting, and
 * with it set, every transaction), and a month not over marked partial with its cut-off.
 *
 * Figures: `faults` (cases injected / survived / data lost).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';
import { recordFigures } from './support/figures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const OCTOBER = [
  '2025-10-02T09:00:00.000Z',
  '2025-10-15T12:00:00.000Z',
  '2025-10-31T08:00:00.000Z',
  '2025-10-31T23:30:00.500Z',
];
const ISO_BOUNDS = '{"earliestDate":"2025-10-01T00:00:00Z","latestDate":"2025-10-31T23:59:59Z"}';

/** One case: what the service holds and sends, how the CLI is run, what must be published. */
interface InstantCase {
  name: string;
  dateBounds: string;
  /** The true instants of the transactions. */
  instants: string[];
  /** The JSON token the service writes for an instant. */
  token?: (at: string) => string;
  /** How the service files an instant against a search window (default: as it is). */
  file?: (at: number) => number;
  period?: string;
  now?: string;
  config?: object;
  timeZone?: string;
  /** Exit 1 naming this, no manifest; else exit 0 publishing `instants`. */
  refusal?: RegExp;
  /** The manifest must say the period is partial, with this cut-off. */
  partialCutOff?: string;
}

const secondsToken = (at: string) => String(Date.parse(at) / 1000);
const offsetlessToken = (at: string) => JSON.stringify(at.replace('Z', ''));
const intoNextMonth = (at: number) => at + 2 * 3_600_000;

const CASES: InstantCase[] = [
  {
    name: 'date-bounds as calendar dates',
    dateBounds: '{"earliestDate":"2025-10-01","latestDate":"2025-10-31"}',
    instants: OCTOBER,
  },
  {
    name: 'date-bounds cut to whole seconds',
    dateBounds: '{"earliestDate":"2025-10-02T09:00:00Z","latestDate":"2025-10-31T23:30:00Z"}',
    instants: OCTOBER,
  },
  {
    name: 'a row filed under the next month',
    dateBounds: '{"earliestDate":"2025-09-10T12:00:00Z","latestDate":"2025-10-31T12:00:00Z"}',
    instants: [
      '2025-09-10T12:00:00.000Z',
      '2025-09-30T23:00:00.000Z',
      '2025-10-15T12:00:00.000Z',
      '2025-10-31T12:00:00.000Z',
    ],
    file: intoNextMonth,
    period: '2025-09-01..2025-10-31',
  },
  {
    name: 'dates as epoch seconds (unit not configured)',
    dateBounds: ISO_BOUNDS,
    instants: OCTOBER,
    token: secondsToken,
    refusal: /epochUnit to "seconds"/,
  },
  {
    name: 'dates as epoch seconds (epochUnit seconds)',
    dateBounds: ISO_BOUNDS,
    instants: OCTOBER,
    token: secondsToken,
    config: { shape: { instants: { epochUnit: 'seconds' } } },
  },
  {
    name: 'dates without an offset, TZ=America/New_York (zone not configured)',
    dateBounds: ISO_BOUNDS,
    instants: OCTOBER,
    token: offsetlessToken,
    timeZone: 'America/New_York',
    refusal: /shape\.instants\.offsetlessZone/,
  },
  {
    name: 'dates without an offset, TZ=America/New_York (offsetlessZone UTC)',
    dateBounds: ISO_BOUNDS,
    instants: OCTOBER,
    token: offsetlessToken,
    timeZone: 'America/New_York',
    config: { shape: { instants: { offsetlessZone: 'UTC' } } },
  },
  {
    name: 'a month not over yet',
    dateBounds: '{"earliestDate":"2026-11-02T09:00:00Z","latestDate":"2026-11-20T12:00:00Z"}',
    instants: ['2026-11-02T09:00:00.000Z', '2026-11-20T12:00:00.000Z'],
    period: '2026-11',
    now: '2026-11-26T10:00:00.000Z',
    partialCutOff: '2026-11-26T10:00:00.000Z',
  },
];

async function serve(testCase: InstantCase): Promise<HostileServer> {
  const token = testCase.token ?? ((at: string) => JSON.stringify(at));
  const file = testCase.file ?? ((at: number) => at);
  const texts = testCase.instants.map((at, n) =>
    transactionText({ id: `tx-${n}`, date: '@', amount: '"1"', value: '"10.00"' })
      .replace('"date":"@"', `"date":${token(at)}`)
      .replace('"lastModifiedDate":"@"', `"lastModifiedDate":${token(at)}`),
  );
  const instantOf = new Map(texts.map((text, n) => [text, Date.parse(testCase.instants[n] as string)]));
  const server = await startHostileServer({
    dateBounds: testCase.dateBounds,
    transactions: texts,
    select: (query, items) => {
      const start = Date.parse(query.get('startDate') ?? '');
      const end = Date.parse(query.get('endDate') ?? '');
      return items.filter((item) => {
        const at = file(instantOf.get(item) as number);
        return at >= start && at < end;
      });
    },
  });
  cleanups.push(() => server.close());
  return server;
}

/** Runs the CLI on the case; returns its exit code, stderr, and what it published. */
async function runCase(testCase: InstantCase) {
  const server = await serve(testCase);
  const dir = await mkdtemp(join(tmpdir(), 'pbs-instants-faults-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const flags: string[] = [];
  const env: Record<string, string> = { PBS_API_KEY: 'pk_faults', PBS_API_SECRET: 'faults-secret' };
  if (testCase.config === undefined) env.PBS_BASE_URL = server.url;
  else {
    const configFile = join(dir, 'service.json');
    await writeFile(configFile, JSON.stringify({ baseUrl: server.url, ...testCase.config }));
    flags.push('--config', configFile);
  }
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    env,
    now: () => new Date(testCase.now ?? '2026-11-26T10:00:00.000Z'),
  };
  const out = join(dir, 'out');
  const argv = ['run', '--profile', 'acme', '--period', testCase.period ?? '2025-10', '--format', 'csv'];
  const zone = process.env.TZ;
  if (testCase.timeZone !== undefined) process.env.TZ = testCase.timeZone;
  let code: number;
  try {
    code = await main([...argv, '--out', out, ...flags], io);
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
  const files = (await readdir(out, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  const manifestFile = files.find((name) => name.endsWith('manifest.json'));
  const csvFile = files.find((name) => name.endsWith('_transactions.csv'));
  const dates =
    csvFile === undefined
      ? []
      : (parse(await readFile(csvFile), { bom: true, columns: true }) as Record<string, string>[]).map(
          // The CSV writes the UTC column as UTC wall time, without `Z`.
          (row) => `${row.date_utc}Z`,
        );
  const manifest = manifestFile === undefined ? undefined : JSON.parse(await readFile(manifestFile, 'utf8'));
  return { code, stderr: err.join(''), dates, manifest };
}

describe('the service instants, in every form', () => {
  it.each(CASES.map((c) => [c.name, c] as const))(
    'publishes every transaction or refuses cleanly: %s',
    async (name, testCase) => {
      const run = await runCase(testCase);
      const published = run.manifest !== undefined;
      const lost = published && testCase.instants.some((at) => !run.dates.includes(at));
      const partialOk =
        testCase.partialCutOff === undefined ||
        run.manifest?.period?.partial?.cutOff === testCase.partialCutOff;
      const survived =
        testCase.refusal === undefined
          ? run.code === 0 && !lost && partialOk
          : run.code === 1 && !published && testCase.refusal.test(run.stderr);
      recordFigures('faults', `instants: ${name}`, {
        injected: 1,
        survived: survived ? 1 : 0,
        dataLost: lost || (published && !partialOk) ? 1 : 0,
      });

      if (testCase.refusal !== undefined) {
        expect({ code: run.code, published }).toEqual({ code: 1, published: false });
        expect(run.stderr).toMatch(testCase.refusal);
        return;
      }
      expect(run.code).toBe(0);
      expect(run.dates).toEqual(testCase.instants);
      if (testCase.partialCutOff !== undefined) {
        expect(run.manifest?.period?.partial?.cutOff).toBe(testCase.partialCutOff);
      }
    },
  );
});
