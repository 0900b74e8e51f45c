/**
 * `pbs-export run` as a user runs it (the CLI, October 2025) against a service on loopback that
 * reports no total and pages in a hostile way (see `hostilePaging`), and the cases the CLI tests
 * and the faults suite share: what each service does, and what a correct run of it is.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { type CliIo, main } from '../../lib/cli/main.ts';
import type { Pagination } from '../../lib/pbs/index.ts';
import {
  type HostilePaging,
  type HostileServer,
  hostilePaging,
  startHostileServer,
  transactionText,
} from './hostile-server.ts';

const BOUNDS = '{"earliestDate":"2025-10-01T00:00:00.000Z","latestDate":"2025-10-31T23:00:00.000Z"}';

/** The ids of the `count` transactions of {@link textsOf}. */
export const idsOf = (count: number): string[] =>
  Array.from({ length: count }, (_, n) => `tx-${String(n).padStart(4, '0')}`);

/** `count` transactions 37 minutes apart from 1 October 2025 (1 200 fit the month), oldest first. */
export const textsOf = (count: number): string[] =>
  idsOf(count).map((id, n) =>
    transactionText({
      id,
      date: new Date(Date.UTC(2025, 9, 1) + n * 37 * 60_000).toISOString(),
      amount: '"1"',
      value: '"1.00"',
    }),
  );

/** Page numbers, 500 a page, no total. */
export const PAGES_NO_TOTAL: Pagination = {
  style: 'page',
  pageParam: 'page',
  pageSizeParam: 'pageSize',
  pageSize: 500,
  firstPage: 1,
  totalItemsPath: null,
  totalPagesPath: null,
};

/** Offsets, `limit` a page, no total. */
export const offsetsNoTotal = (limit: number): Pagination => ({
  style: 'offset',
  offsetParam: 'offset',
  limitParam: 'limit',
  limit,
  totalItemsPath: null,
});

/** One run of the CLI against a hostile service. */
export interface HostilePagingRun {
  code: number;
  stderr: string;
  manifests: string[];
  /** Ids of the published transactions CSV, none when nothing was published. */
  ids: string[];
  server: HostileServer;
}

/**
 * Runs `pbs-export run` for October 2025 against a service of `count` transactions paging as
 * `paging`, configured with `pagination`. What it starts is closed by the functions it pushes
 * onto `cleanups`.
 */
export async function exportFromHostilePaging(
  paging: HostilePaging,
  pagination: Pagination,
  count: number,
  cleanups: (() => Promise<void>)[],
): Promise<HostilePagingRun> {
  const texts = textsOf(count);
  const server = await startHostileServer(
    { dateBounds: BOUNDS, transactions: texts },
    hostilePaging(texts, paging),
  );
  cleanups.push(() => server.close());
  const dir = await mkdtemp(join(tmpdir(), 'pbs-hostile-paging-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const config = join(dir, 'service.json');
  // A high request rate: a listing of 4 a page is hundreds of requests.
  const settings = { baseUrl: server.url, requestsPerSecond: 10_000, shape: { pagination } };
  await writeFile(config, JSON.stringify(settings));
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    env: { PBS_API_KEY: 'paging-key', PBS_API_SECRET: 'paging-secret' },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const out = join(dir, 'out');
  const flags = ['--period', '2025-10', '--format', 'csv', '--out', out, '--config', config];
  const code = await main(['run', '--profile', 'acme', ...flags], io);
  const files = (await readdir(out, { recursive: true, withFileTypes: true }).catch(() => []))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  const csv = files.find((file) => file.endsWith('_transactions.csv'));
  const rows =
    csv === undefined
      ? []
      : (parse(await readFile(csv), { bom: true, columns: true }) as Record<string, string>[]);
  return {
    code,
    stderr: err.join(''),
    manifests: files.filter((file) => file.endsWith('manifest.json')),
    ids: rows.map((row) => row.id as string),
    server,
  };
}

/** The `order` of each listing of `/v2/transactions`, read from the requests `firstPage` picks. */
export function listingOrders(
  server: HostileServer,
  firstPage: (query: URLSearchParams) => boolean,
): string[] {
  return server.requests
    .map((request) => new URL(request.url, 'http://localhost'))
    .filter((url) => url.pathname === '/v2/transactions' && firstPage(url.searchParams))
    .map((url) => url.searchParams.get('order') ?? '');
}

/** A hostile service and what a correct run against it does. */
export interface HostilePagingCase {
  name: string;
  paging: HostilePaging;
  pagination: Pagination;
  count: number;
  /** `all`: every transaction exported (exit 0); `clean failure`: exit 1 and no manifest. */
  correct: 'all' | 'clean failure';
}

/** The services of issue #37 (1 200 transactions) and the faults suite's (4 a page, late at a shared boundary). */
export const HOSTILE_PAGING_CASES: readonly HostilePagingCase[] = [
  {
    name: '500 a page whatever is asked, pages after the first a row late (page numbers)',
    paging: { style: 'page', fixedPageSize: 500, shiftAfterFirst: 1 },
    pagination: PAGES_NO_TOTAL,
    count: 1200,
    correct: 'clean failure',
  },
  {
    name: '500 a page whatever is asked, a row only on the first page (offsets)',
    paging: { style: 'offset', fixedPageSize: 500, pinnedNewest: true },
    pagination: offsetsNoTotal(500),
    count: 1200,
    correct: 'clean failure',
  },
  {
    name: 'pages capped at 100 when 500 are asked (page numbers)',
    paging: { style: 'page', cap: 100 },
    pagination: PAGES_NO_TOTAL,
    count: 1200,
    correct: 'all',
  },
  {
    name: 'pages capped at 100 when 500 are asked (offsets)',
    paging: { style: 'offset', cap: 100 },
    pagination: offsetsNoTotal(500),
    count: 1200,
    correct: 'all',
  },
  {
    name: '4 a page, the page at offset 108 (4 × 27, 3 × 36) 12 rows late',
    paging: { style: 'offset', lateAt: { offset: 108, by: 12 } },
    pagination: offsetsNoTotal(4),
    count: 120,
    correct: 'clean failure',
  },
];

/** Whether `run` of `testCase` is correct, and whether it published an export with transactions missing. */
export function judgeHostilePaging(
  testCase: HostilePagingCase,
  run: HostilePagingRun,
): { survived: boolean; dataLost: boolean } {
  const all = idsOf(testCase.count);
  const complete = run.ids.length === all.length && run.ids.every((id, n) => id === all[n]);
  const dataLost = run.manifests.length > 0 && !complete;
  const survived =
    testCase.correct === 'all' ? run.code === 0 && complete : run.code === 1 && run.manifests.length === 0;
  return { survived, dataLost };
}
