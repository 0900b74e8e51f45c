/**
 * Trust in the fetch, swept as an adversary would: a server on loopback that sends amounts as
 * JSON numbers of every awkward form, redirects to another host, streams an endless body, echoes
 * the credentials in every encoding, contradicts its own date-bounds, loses rows from a protocol
 * search, or sends one id twice with different content. Through the CLI as a user runs it; each
 * case ends in the service's exact data (exit 0) or a clean failure (exit 1, no manifest).
 *
 * Figures: `hostileData` (number tokens sent / read back exactly from the CSV), `faults` (cases
 * injected / survived / data lost), `security` (checks / passed / leaks).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { secretForms } from '../../lib/redaction.ts';
import { startSimulator } from '../../lib/simulator/index.ts';
import {
  type FakeServiceData,
  type HostileHandler,
  type HostileServer,
  startHostileServer,
  transactionText,
} from '../support/hostile-server.ts';
import { recordFigures } from './support/figures.ts';

const BOUNDS = '{"earliestDate":"2025-03-01T00:00:00.000Z","latestDate":"2025-03-31T00:00:00.000Z"}';
const KEY = 'trust-key/+= é';
const SECRET = 'trust-secret&"<>%';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface CliRun {
  code: number;
  stderr: string;
  dir: string;
  /** The published manifest, if any. */
  manifest: string | undefined;
  csv(suffix: string): Promise<Record<string, string>[]>;
}

async function serve(data: FakeServiceData, handler?: HostileHandler): Promise<HostileServer> {
  const server = await startHostileServer(data, handler);
  cleanups.push(() => server.close());
  return server;
}

async function runCli(server: HostileServer, ...flags: string[]): Promise<CliRun> {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-trust-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    env: { PBS_BASE_URL: server.url, PBS_API_KEY: KEY, PBS_API_SECRET: SECRET },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const argv = ['run', '--profile', 'acme', '--period', '2025-03', '--format', 'csv', '--out', dir, ...flags];
  const code = await main(argv, io);
  const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
  return {
    code,
    stderr: err.join(''),
    dir,
    manifest: files.find((file) => file.endsWith('manifest.json')),
    async csv(suffix) {
      const file = files.find((name) => name.endsWith(suffix));
      if (file === undefined) return [];
      return parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[];
    },
  };
}

/** A JSON number token: up to 30 digits, maybe a fraction with trailing zeros, maybe an exponent. */
const numberToken = fc
  .tuple(
    fc.boolean(),
    fc.stringMatching(/^(0|[1-9]\d{0,29})$/),
    fc.option(fc.stringMatching(/^\d{1,20}$/), { nil: undefined }),
    fc.option(fc.integer({ min: -30, max: 30 }), { nil: undefined }),
  )
  .map(([negative, whole, fraction, exponent]) => {
    const sign = negative ? '-' : '';
    const point = fraction === undefined ? '' : `.${fraction}`;
    const power = exponent === undefined ? '' : `e${exponent}`;
    return `${sign}${whole}${point}${power}`;
  });

/** The plain decimal an exponent form stands for, by digit shifting (independent of the export). */
function plainOf(token: string): string {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e(-?\d+))?$/.exec(token) as RegExpExecArray;
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  const digits = whole + fraction;
  const point = whole.length + Number(exponent);
  const padded = point <= 0 ? '0'.repeat(1 - point) + digits : digits.padEnd(point, '0');
  const at = Math.max(point, 1);
  const integer = padded.slice(0, at).replace(/^0+(?=\d)/, '');
  const rest = padded.slice(at);
  const text = rest === '' ? integer : `${integer}.${rest}`;
  return /^[0.]+$/.test(text) ? text : `${sign}${text}`;
}

describe('amounts sent as JSON numbers', () => {
  it('reach the CSV as their exact decimal, for 200 generated number tokens', async () => {
    const tokens = fc.sample(numberToken, { numRuns: 200, seed: 20261124 });
    const texts = tokens.map((token, n) =>
      transactionText({
        id: `tx-${String(n).padStart(3, '0')}`,
        date: `2025-03-${String(1 + (n % 28)).padStart(2, '0')}T10:00:00.000Z`,
        amount: token,
        value: token,
      }),
    );
    const server = await serve({ dateBounds: BOUNDS, transactions: texts });

    const run = await runCli(server);
    const byId = new Map((await run.csv('_movements.csv')).map((row) => [row.transaction_id, row.amount]));
    const exact = tokens.filter(
      (token, n) => byId.get(`tx-${String(n).padStart(3, '0')}`) === plainOf(token),
    );
    recordFigures('hostileData', 'trust: amounts as JSON numbers (CSV)', {
      values: tokens.length,
      readBackExactly: exact.length,
    });

    expect(run.code).toBe(0);
    const wrong = tokens.flatMap((token, n) => {
      const got = byId.get(`tx-${String(n).padStart(3, '0')}`);
      return got === plainOf(token) ? [] : [{ token, got, expected: plainOf(token) }];
    });
    expect(wrong).toEqual([]);
  });
});

/** Runs of `length` characters of `text`. */
function runsOf(text: string, length: number): string[] {
  return Array.from({ length: Math.max(0, text.length - length + 1) }, (_, at) =>
    text.slice(at, at + length),
  );
}

/** One case that must end cleanly: exit 1, no manifest, the reason named. */
interface FailureCase {
  name: string;
  data: FakeServiceData;
  handler?: HostileHandler;
  flags?: string[];
  reason: RegExp;
}

const ONE = (id: string, protocol: string | null = null) =>
  transactionText({ id, date: '2025-03-02T10:00:00.000Z', amount: '"1"', value: '"1"', protocol });

/** A server handler answering the timeline endpoint with `items`, whatever it is asked. */
const timelineAnswer =
  (items: string[]): HostileHandler =>
  (request, response) => {
    if (!request.url?.startsWith('/v2/transactions/timeline')) return false;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      `{"items":[${items.join(',')}],"page":1,"pageSize":500,"totalItems":${items.length},"totalPages":1}`,
    );
    return true;
  };

/** A timeline item modified at `lastModified`, with `deleted` spliced in raw (omitted if undefined). */
const CHANGE = (id: string, lastModified: string, deleted?: string) =>
  ONE(id).replace(
    /"lastModifiedDate":"[^"]*"\}$/,
    `"lastModifiedDate":${JSON.stringify(lastModified)},` +
      `"source":{"sourceGuid":"6f1c2a9e-0000-4000-8000-000000000001","name":"Wallet"}` +
      `${deleted === undefined ? '' : `,"deleted":${deleted}`}}`,
  );

const CHANGES_FLAGS = ['--report', 'transactions,changes', '--changes-since', '2025-10-01'];

const FAILURE_CASES: FailureCase[] = [
  ...['1', '"yes"', '"TRUE"'].map(
    (flag): FailureCase => ({
      name: `a timeline deleted flag sent as ${flag}`,
      data: { dateBounds: BOUNDS, transactions: [ONE('a')] },
      handler: timelineAnswer([CHANGE('gone', '2025-10-05T08:00:00.000Z', flag)]),
      flags: CHANGES_FLAGS,
      reason: new RegExp(`deleted"?:? is ${flag}, not a JSON boolean`),
    }),
  ),
  {
    name: 'latest date-bound before the earliest',
    data: {
      dateBounds: '{"earliestDate":"2025-03-20T00:00:00.000Z","latestDate":"2025-03-01T00:00:00.000Z"}',
      transactions: [ONE('a')],
    },
    reason: /latestDate: .*inconsistent date-bounds/,
  },
  {
    name: 'one date-bound null',
    data: {
      dateBounds: '{"earliestDate":null,"latestDate":"2025-03-20T00:00:00.000Z"}',
      transactions: [ONE('a')],
    },
    reason: /earliestDate: is null while latestDate is set/,
  },
  {
    name: 'a protocol search losing a row',
    data: {
      dateBounds: BOUNDS,
      metadata: '{"defiProtocols":["Aave V3"]}',
      transactions: [ONE('a', 'Aave V3'), ONE('b', 'Aave V3')],
      select: (query, items) => (query.get('p') === null ? [...items] : items.slice(0, 1)),
    },
    flags: ['--protocol', 'all'],
    reason: /the unfiltered search listed 2 transactions/,
  },
  {
    name: 'one id twice with different content',
    data: {
      dateBounds: BOUNDS,
      transactions: [
        ONE('a'),
        transactionText({ id: 'a', date: '2025-03-02T10:00:00.000Z', amount: '"2"', value: '"2"' }),
      ],
    },
    reason: /conflictingCopies/,
  },
  {
    name: 'an endless body',
    data: { dateBounds: BOUNDS, transactions: [] },
    handler: (request, response) => {
      if (!request.url?.startsWith('/v2/transactions?')) return false;
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"items":[');
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      const pump = (): void => {
        // Bounded at 128 MiB, twice the client's default limit, then it ends on its own.
        while (sent < 512 && !response.destroyed && response.write(chunk)) sent += 1;
        if (sent >= 512 || response.destroyed) response.end();
        else response.once('drain', pump);
      };
      pump();
      return true;
    },
    reason: /maxResponseBytes/,
  },
];

describe('services the export cannot trust', () => {
  it.each(FAILURE_CASES.map((c) => [c.name, c] as const))('fails cleanly on %s', async (name, testCase) => {
    const server = await serve(testCase.data, testCase.handler);
    const run = await runCli(server, ...(testCase.flags ?? []));
    const survived = run.code === 1 && run.manifest === undefined && testCase.reason.test(run.stderr);
    recordFigures('faults', `trust: ${name}`, {
      injected: 1,
      survived: survived ? 1 : 0,
      dataLost: run.manifest ? 1 : 0,
    });

    expect({ code: run.code, manifest: run.manifest }).toEqual({ code: 1, manifest: undefined });
    expect(run.stderr).toMatch(testCase.reason);
  });
});

describe('redirects and echoed credentials', () => {
  it('never sends a request to where a redirect points, nor shows a form of the credentials', async () => {
    const elsewhere = await serve({ dateBounds: BOUNDS, transactions: [] });
    let checks = 0;
    let leaks = 0;
    const statuses = [301, 302, 303, 307, 308];
    for (const status of statuses) {
      const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
        response.writeHead(status, { location: `${elsewhere.url}/v2/transactions/date-bounds` });
        response.end();
        return true;
      });
      const run = await runCli(server);
      checks += 1;
      if (run.code !== 1 || !run.stderr.includes(`HTTP ${status}`)) leaks += 1;
    }
    checks += 1;
    if (elsewhere.requests.length > 0) leaks += 1;

    const encodings: ((text: string) => string)[] = [
      (text) => text,
      encodeURIComponent,
      (text) => encodeURIComponent(text).replace(/%20/g, '+'),
      (text) => JSON.stringify(text),
      (text) => Buffer.from(text).toString('base64'),
      (text) => Buffer.from(text).toString('hex'),
      (text) => Buffer.from(text).toString('hex').toUpperCase(),
      (text) => JSON.stringify(text).replace(/\//g, '\\/'),
      (text) =>
        JSON.stringify(text).replace(/[&<>]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      (text) =>
        [...Buffer.from(text)].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join(''),
      (text) => Buffer.from(`${KEY}:${text}`).toString('base64'),
      (text) => Buffer.from(`${KEY}:${text}`).toString('base64url'),
    ];
    for (const encode of encodings) {
      const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
        response.writeHead(400, { 'content-type': 'text/plain' });
        response.end(`denied key=${encode(KEY)} secret=${encode(SECRET)}`);
        return true;
      });
      const run = await runCli(server);
      const forms = [...secretForms(KEY), ...secretForms(SECRET), ...runsOf(encode(SECRET), 8)];
      checks += 1;
      if (forms.some((form) => run.stderr.includes(form))) leaks += 1;
    }
    // A non-JSON body is shown cut short: the secret straddles the cut.
    const cutServer = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end(`${'x'.repeat(190)}${SECRET} and more`);
      return true;
    });
    const cutRun = await runCli(cutServer);
    checks += 1;
    if (runsOf(SECRET, 4).some((run) => cutRun.stderr.includes(run))) leaks += 1;
    recordFigures('security', 'trust: redirects and echoed credentials', {
      checks,
      passed: checks - leaks,
      leaks,
    });

    expect(leaks).toBe(0);
  });
});

describe('a timeline that ignores lastModifiedDate', () => {
  it('lists only the changes since --changes-since, and says how many it left out', async () => {
    const server = await serve(
      { dateBounds: BOUNDS, transactions: [ONE('a')] },
      timelineAnswer([
        CHANGE('august', '2025-08-14T12:00:00.000Z', 'false'),
        CHANGE('october', '2025-10-02T12:00:00.000Z', 'true'),
      ]),
    );

    const run = await runCli(server, ...CHANGES_FLAGS);
    const listed = (await run.csv('_changes.csv')).map((row) => row.id);
    const survived = run.code === 0 && listed.join() === 'october' && /left out/.test(run.stderr);
    recordFigures('faults', 'trust: a timeline ignoring lastModifiedDate', {
      injected: 1,
      survived: survived ? 1 : 0,
      dataLost: listed.includes('august') ? 1 : 0,
    });

    expect({ code: run.code, listed }).toEqual({ code: 0, listed: ['october'] });
  });
});

describe('a protocol named like the group of no protocol', () => {
  it('keeps the protocol "(none)" and the transactions of no protocol apart in the summary', async () => {
    const server = await serve({
      dateBounds: BOUNDS,
      metadata: '{"defiProtocols":["(none)"]}',
      transactions: [ONE('a', '(none)'), ONE('b')],
      select: (query, items) => {
        const protocol = query.get('p');
        return protocol === null
          ? [...items]
          : items.filter((item) => JSON.parse(item).protocol === protocol);
      },
    });

    const run = await runCli(server, '--protocol', 'all');
    const rows = (await run.csv('_summary_by_month.csv')).filter((row) => row.month === '2025-03');
    const groups = rows.map((row) => [row.protocol, row.count]);
    const apart = groups.length === 2;
    recordFigures('faults', 'trust: a protocol named "(none)"', {
      injected: 1,
      survived: run.code === 0 && apart ? 1 : 0,
      dataLost: apart ? 0 : 1,
    });

    expect(groups).toEqual([
      ['(none)', '1'],
      ['', '1'],
    ]);
  });
});

describe('the simulator reached as if it were the real service', () => {
  it('marks the files as demo data', async () => {
    const simulator = await startSimulator({});
    cleanups.push(() => simulator.close());
    const acme = simulator.profiles.find((profile) => profile.name === 'acme');
    const dir = await mkdtemp(join(tmpdir(), 'pbs-trust-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    const io: CliIo = {
      stdout: { write: () => true },
      stderr: { write: () => true },
      env: { PBS_BASE_URL: simulator.url, PBS_API_KEY: acme?.apiKey, PBS_API_SECRET: acme?.apiSecret },
      now: () => new Date('2026-11-24T10:00:00.000Z'),
    };

    const code = await main(
      ['run', '--profile', 'acme', '--period', '2025-03', '--format', 'csv', '--out', dir],
      io,
    );
    const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((entry) =>
      entry.isFile(),
    );
    const readme = files.find((entry) => entry.name === 'README.txt');
    const text = readme ? await readFile(join(readme.parentPath, readme.name), 'utf8') : '';
    const marked = /^\uFEFF?DEMO DATA/.test(text);
    recordFigures('faults', 'trust: the simulator through PBS_BASE_URL', {
      injected: 1,
      survived: code === 0 && marked ? 1 : 0,
      dataLost: 0,
    });

    expect({ code, marked }).toEqual({ code: 0, marked: true });
  });
});
