/**
 * The CLI against a service whose timeline and protocols cannot be taken at their word (loopback
 * HTTP, `PBS_BASE_URL`): a `deleted` flag that is not a JSON boolean, a timeline that ignores
 * `lastModifiedDate`, a protocol literally named `(none)`. Expectations come from the texts the
 * server sent, read back from the CSV with csv-parse.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';

const BOUNDS = '{"earliestDate":"2025-03-01T00:00:00.000Z","latestDate":"2025-03-31T00:00:00.000Z"}';
const ONE = transactionText({ id: 'tx-1', date: '2025-03-02T10:00:00.000Z', amount: '"1"', value: '"1"' });

let dir: string;
let server: HostileServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-hostile-timeline-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** A timeline item as JSON text: `deleted` spliced in raw (omitted when undefined). */
function timelineItem(id: string, lastModified: string, deleted?: string): string {
  const flag = deleted === undefined ? '' : `,"deleted":${deleted}`;
  return (
    `{"id":${JSON.stringify(id)},"date":"2025-03-02T10:00:00.000Z","type":"trade","subType":"swap",` +
    `"category":"trade","protocol":null,"hash":"0xabc","accountId":"acc_1","ledgerId":"led_1",` +
    `"movements":[],"value":{"amount":"1","currency":"USD"},` +
    `"lastModifiedDate":${JSON.stringify(lastModified)},` +
    `"source":{"sourceGuid":"6f1c2a9e-0000-4000-8000-000000000001","name":"Wallet"}${flag}}`
  );
}

/** A server whose timeline endpoint answers `items` whatever `lastModifiedDate` asks for. */
async function timelineServer(items: string[]): Promise<HostileServer> {
  return startHostileServer({ dateBounds: BOUNDS, transactions: [ONE] }, (request, response) => {
    if (!request.url?.startsWith('/v2/transactions/timeline')) return false;
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      `{"items":[${items.join(',')}],"page":1,"pageSize":500,"totalItems":${items.length},"totalPages":1}`,
    );
    return true;
  });
}

async function runCli(...flags: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: { PBS_BASE_URL: server?.url ?? '', PBS_API_KEY: 'timeline-key', PBS_API_SECRET: 'timeline-secret' },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const argv = ['run', '--profile', 'acme', '--period', '2025-03', '--format', 'csv', '--out', dir, ...flags];
  const code = await main(argv, io);
  return { code, stdout: out.join(''), stderr: err.join('') };
}

async function files(): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

async function csvRows(suffix: string): Promise<Record<string, string>[]> {
  const file = (await files()).find((name) => name.endsWith(suffix));
  if (file === undefined) throw new Error(`no file ending ${suffix}`);
  return parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[];
}

const CHANGES = ['--report', 'transactions,changes', '--changes-since', '2025-10-01'];

describe('pbs-export run against a timeline whose deleted flag is not a JSON boolean', () => {
  it.each([['1'], ['"yes"'], ['"TRUE"'], ['"true"'], ['0']])(
    'exits 1 naming the field and the value %s, and publishes no manifest',
    async (flag) => {
      server = await timelineServer([timelineItem('tx-9', '2025-10-05T08:00:00.000Z', flag)]);

      const result = await runCli(...CHANGES);

      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/deleted"?:? is (\S+), not a JSON boolean/);
      expect(/deleted"?:? is (\S+), not a JSON boolean/.exec(result.stderr)?.[1]).toBe(flag);
      expect(result.stderr).toContain('"tx-9"');
      expect((await files()).filter((file) => file.endsWith('manifest.json'))).toEqual([]);
    },
  );

  it('exits 1 naming the field and the value for a deleted tombstone without a date', async () => {
    const tombstone = timelineItem('tx-8', '2025-10-05T08:00:00.000Z', '"yes"').replace(
      '"date":"2025-03-02T10:00:00.000Z",',
      '',
    );
    server = await timelineServer([tombstone]);

    const result = await runCli(...CHANGES);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('items[0].deleted: is "yes", not a JSON boolean (item "tx-8")');
  });

  it('marks true as deleted, and false or an absent flag as not deleted', async () => {
    server = await timelineServer([
      timelineItem('tx-a', '2025-10-05T08:00:00.000Z', 'true'),
      timelineItem('tx-b', '2025-10-06T08:00:00.000Z', 'false'),
      timelineItem('tx-c', '2025-10-07T08:00:00.000Z'),
    ]);

    const result = await runCli(...CHANGES);

    expect(result.code).toBe(0);
    expect((await csvRows('_changes.csv')).map((row) => [row.id, row.deleted])).toEqual([
      ['tx-a', 'yes'],
      ['tx-b', 'no'],
      ['tx-c', 'no'],
    ]);
  });
});

describe('pbs-export run against a timeline that ignores lastModifiedDate', () => {
  it('lists only the items modified since --changes-since, and warns about and counts the others', async () => {
    server = await timelineServer([
      timelineItem('august', '2025-08-14T12:00:00.000Z', 'false'),
      timelineItem('september-end', '2025-09-30T23:59:59.999Z', 'true'),
      timelineItem('october', '2025-10-01T00:00:00.000Z', 'false'),
      timelineItem('november', '2025-11-02T09:00:00.000Z', 'true'),
    ]);

    const result = await runCli(...CHANGES);

    expect(result.code).toBe(0);
    expect((await csvRows('_changes.csv')).map((row) => row.id)).toEqual(['october', 'november']);
    expect(result.stderr).toContain(
      'the timeline sent 2 item(s) last modified before 2025-10-01T00:00:00.000Z ("august", "september-end")',
    );
    const manifestFile = (await files()).find((file) => file.endsWith('manifest.json')) as string;
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8'));
    expect(manifest.counts).toMatchObject({ changes: 2, changesBeforeSinceDropped: 2 });
  });

  it('fails naming lastModifiedDate when an item has none', async () => {
    const item = timelineItem('undated', '2025-10-05T08:00:00.000Z').replace(
      '"lastModifiedDate":"2025-10-05T08:00:00.000Z",',
      '',
    );
    server = await timelineServer([item]);

    const result = await runCli(...CHANGES);

    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/undated.*field "lastModifiedDate" is not a date/);
  });
});

describe('pbs-export run against a service with a protocol literally named "(none)"', () => {
  const texts = [
    transactionText({
      id: 'a',
      date: '2025-03-02T10:00:00.000Z',
      amount: '"1"',
      value: '"1"',
      protocol: '(none)',
    }),
    transactionText({ id: 'b', date: '2025-03-03T10:00:00.000Z', amount: '"1"', value: '"2"' }),
    transactionText({
      id: 'c',
      date: '2025-03-04T10:00:00.000Z',
      amount: '"1"',
      value: '"4"',
      protocol: '(none)',
    }),
  ];
  const select = (query: URLSearchParams, items: readonly string[]) => {
    const protocol = query.get('p');
    return protocol === null ? [...items] : items.filter((item) => JSON.parse(item).protocol === protocol);
  };

  it.each([[[]], [['--protocol', 'all']]])(
    'keeps the protocol and the transactions of no protocol in separate summary rows (flags %j)',
    async (flags) => {
      server = await startHostileServer({
        dateBounds: BOUNDS,
        metadata: '{"defiProtocols":["(none)"]}',
        transactions: texts,
        select,
      });

      const result = await runCli(...flags);

      expect(result.code).toBe(0);
      const rows = (await csvRows('_summary_by_month.csv')).filter((row) => row.month === '2025-03');
      expect(rows.map((row) => [row.protocol, row.count, row.value])).toEqual([
        ['(none)', '2', '5.00'],
        ['', '1', '2.00'],
      ]);
    },
  );
});
