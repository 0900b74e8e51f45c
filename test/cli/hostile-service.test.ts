/**
 * The CLI as a user runs it, against a service that misbehaves on purpose (loopback HTTP). The
 * expectations are independent of the client: the exact texts the server sent, read back from the
 * CSV with csv-parse and from the gunzipped snapshot as bytes.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { secretForms } from '../../lib/redaction.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';

const BOUNDS = '{"earliestDate":"2025-03-01T00:00:00.000Z","latestDate":"2025-03-31T00:00:00.000Z"}';
const API_KEY = 'pbs key/with+signs';
const API_SECRET = 'sec"ret/+=&é';

let dir: string;
let server: HostileServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-hostile-cli-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

function captureIo(baseUrl: string) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: { PBS_BASE_URL: baseUrl, PBS_API_KEY: API_KEY, PBS_API_SECRET: API_SECRET },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

async function runCli(baseUrl: string, ...flags: string[]) {
  const capture = captureIo(baseUrl);
  const argv = ['run', '--profile', 'acme', '--period', '2025-03', '--format', 'csv', '--out', dir, ...flags];
  const code = await main(argv, capture.io);
  return { code, stdout: capture.stdout(), stderr: capture.stderr() };
}

async function files(): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

async function fileEnding(suffix: string): Promise<string> {
  const found = (await files()).find((file) => file.endsWith(suffix));
  if (found === undefined) throw new Error(`no file ending ${suffix}`);
  return found;
}

async function csvRows(suffix: string): Promise<Record<string, string>[]> {
  return parse(await readFile(await fileEnding(suffix)), { bom: true, columns: true }) as Record<
    string,
    string
  >[];
}

describe('pbs-export run against a service sending amounts as JSON numbers', () => {
  it('writes every quantity as its exact decimal text, every USD value exact to the cent, and keeps the snapshot byte for byte', async () => {
    const texts = [
      transactionText({
        id: 'tx-1',
        date: '2025-03-02T10:00:00.000Z',
        amount: '1234567890.123456789012345678',
        value: '12345678901234567890123',
      }),
      transactionText({
        id: 'tx-2',
        date: '2025-03-03T10:00:00.000Z',
        amount: '0.000000000000000001',
        value: '1.50',
      }),
    ];
    server = await startHostileServer({ dateBounds: BOUNDS, transactions: texts });

    const result = await runCli(server.url);

    expect(result.code).toBe(0);
    const movements = await csvRows('_movements.csv');
    expect(movements.map((row) => row.amount)).toEqual([
      '1234567890.123456789012345678',
      '0.000000000000000001',
    ]);
    expect(movements.map((row) => row.value)).toEqual(['12345678901234567890123.00', '1.50']);
    const snapshot = gunzipSync(await readFile(await fileEnding('_snapshot.ndjson.gz'))).toString('utf8');
    for (const text of texts) expect(snapshot).toContain(`"data":${text}}`);
  });
});

describe('pbs-export run against a service sending one id twice with different content', () => {
  const texts = [
    transactionText({ id: 'tx-1', date: '2025-03-02T10:00:00.000Z', amount: '"1.0"', value: '"100.00"' }),
    transactionText({ id: 'tx-1', date: '2025-03-02T10:00:00.000Z', amount: '"2.0"', value: '"200.00"' }),
    transactionText({ id: 'tx-2', date: '2025-03-03T10:00:00.000Z', amount: '"3.0"', value: '"300.00"' }),
  ];

  it('fails with exit 1, names the id, and publishes no manifest', async () => {
    server = await startHostileServer({ dateBounds: BOUNDS, transactions: texts });

    const result = await runCli(server.url);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('transaction "tx-1" came 2 times with different content');
    expect(result.stderr).toMatch(/error: .*conflictingCopies/);
    expect((await files()).filter((file) => file.endsWith('manifest.json'))).toEqual([]);
  });

  it('keeps the last copy in the reports with --conflicting-copies last, and every copy in the snapshot', async () => {
    server = await startHostileServer({ dateBounds: BOUNDS, transactions: texts });

    const result = await runCli(server.url, '--conflicting-copies', 'last');

    expect(result.code).toBe(0);
    const transactions = await csvRows('_transactions.csv');
    expect(transactions.map((row) => [row.id, row.value_amount])).toEqual([
      ['tx-1', '200.00'],
      ['tx-2', '300.00'],
    ]);
    const snapshot = gunzipSync(await readFile(await fileEnding('_snapshot.ndjson.gz'))).toString('utf8');
    expect(snapshot).toContain(
      `{"kind":"conflicting-copy","id":"tx-1","shard":"2025-03","data":${texts[0]}}`,
    );
    const manifest = JSON.parse(await readFile(await fileEnding('manifest.json'), 'utf8'));
    expect(manifest.counts.conflictingCopies).toBe(1);
  });
});

describe('pbs-export run --protocol all against a service with transactions of no protocol', () => {
  it('exports the transactions of every protocol and of none, as many as the unfiltered search lists', async () => {
    const texts = [
      transactionText({
        id: 'a',
        date: '2025-03-02T10:00:00.000Z',
        amount: '"1"',
        value: '"1"',
        protocol: 'Aave V3',
      }),
      transactionText({ id: 'b', date: '2025-03-03T10:00:00.000Z', amount: '"1"', value: '"1"' }),
      transactionText({
        id: 'c',
        date: '2025-03-04T10:00:00.000Z',
        amount: '"1"',
        value: '"1"',
        protocol: 'Lido',
      }),
      transactionText({ id: 'd', date: '2025-03-05T10:00:00.000Z', amount: '"1"', value: '"1"' }),
    ];
    server = await startHostileServer({
      dateBounds: BOUNDS,
      metadata: '{"defiProtocols":["Aave V3","Lido"]}',
      transactions: texts,
      select: (query, items) => {
        const protocol = query.get('p');
        return protocol === null
          ? [...items]
          : items.filter((item) => JSON.parse(item).protocol === protocol);
      },
    });

    const result = await runCli(server.url, '--protocol', 'all');

    expect(result.code).toBe(0);
    expect((await csvRows('_transactions.csv')).map((row) => row.id)).toEqual(['a', 'b', 'c', 'd']);
    const summary = await csvRows('_summary_by_month.csv');
    const noProtocol = summary.filter((row) => row.month !== 'TOTAL' && row.protocol === '');
    expect(noProtocol.map((row) => row.count)).toEqual(['2']);
  });

  it('fails when the protocol searches return fewer than the unfiltered search lists', async () => {
    const texts = [
      transactionText({
        id: 'a',
        date: '2025-03-02T10:00:00.000Z',
        amount: '"1"',
        value: '"1"',
        protocol: 'Aave V3',
      }),
      transactionText({
        id: 'b',
        date: '2025-03-03T10:00:00.000Z',
        amount: '"1"',
        value: '"1"',
        protocol: 'Aave V3',
      }),
    ];
    server = await startHostileServer({
      dateBounds: BOUNDS,
      metadata: '{"defiProtocols":["Aave V3"]}',
      transactions: texts,
      // The protocol search loses `b`.
      select: (query, items) => (query.get('p') === null ? [...items] : items.slice(0, 1)),
    });

    const result = await runCli(server.url, '--protocol', 'all');

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the unfiltered search listed 2 transactions');
    expect((await files()).filter((file) => file.endsWith('manifest.json'))).toEqual([]);
  });
});

describe('pbs-export run against a service that redirects or echoes secrets', () => {
  it('exits 1 on a redirect, naming the status and the target origin, and sends the target nothing', async () => {
    const elsewhere = await startHostileServer({ dateBounds: BOUNDS, transactions: [] });
    try {
      server = await startHostileServer({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
        response.writeHead(301, { location: `${elsewhere.url}/v2/transactions/date-bounds` });
        response.end();
        return true;
      });

      const result = await runCli(server.url);

      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`redirect (HTTP 301) to ${elsewhere.url}`);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await elsewhere.close();
    }
  });

  it('shows no form of the key or the secret on stderr when an error body echoes them encoded', async () => {
    server = await startHostileServer({ dateBounds: BOUNDS, transactions: [] }, (request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      // Echoes the request URL (signature and all) and the key as a server log line would.
      response.end(
        `failed ${request.url} key=${encodeURIComponent(API_KEY)} ` +
          `secret=${JSON.stringify(API_SECRET)} b64=${Buffer.from(API_SECRET).toString('base64')}`,
      );
      return true;
    });

    const result = await runCli(server.url, '--concurrency', '1');

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('[redacted]');
    for (const form of [...secretForms(API_KEY), ...secretForms(API_SECRET)]) {
      expect(result.stderr).not.toContain(form);
    }
  });

  it('exits 1 naming latestDate when the date-bounds contradict each other, and writes nothing', async () => {
    server = await startHostileServer({
      dateBounds: '{"earliestDate":"2025-03-20T00:00:00.000Z","latestDate":"2025-03-01T00:00:00.000Z"}',
      transactions: [],
    });

    const result = await runCli(server.url);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/latestDate: .* is before earliestDate/);
    expect(await files()).toEqual([]);
  });
});
