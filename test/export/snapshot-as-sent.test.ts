/**
 * The snapshot holds each transaction as the service sent it: its own bytes, not the parsed item
 * written out again (a loopback server sends items with spaces, escapes and number tokens of its
 * own style). A body whose items span lines still gives one record per line.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { createPbsClient } from '../../lib/pbs/client.ts';
import { createLocalSink } from '../../lib/storage/index.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';

const BOUNDS = '{"earliestDate":"2025-03-01T00:00:00.000Z","latestDate":"2025-03-31T00:00:00.000Z"}';
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

/** Runs a March 2025 export against `transactions` and returns the snapshot's record lines. */
async function snapshotRecords(transactions: string[]): Promise<string[]> {
  const server: HostileServer = await startHostileServer({ transactions, dateBounds: BOUNDS });
  const out = await mkdtemp(join(tmpdir(), 'pbs-as-sent-'));
  cleanups.push(
    () => server.close(),
    () => rm(out, { recursive: true, force: true }),
  );
  const client = createPbsClient({
    baseUrl: server.url,
    credentials: { apiKey: 'key', apiSecret: 'secret' },
    sleep: async () => {},
  });
  const result = await runExport(parseExportRequest({ profile: 'p', period: '2025-03', formats: ['csv'] }), {
    client,
    sink: createLocalSink(out),
    fields: client.shape.fields,
    apiBase: server.url,
    now: () => new Date('2026-01-01T00:00:00.000Z'),
  });
  const snapshot = result.manifest.files.find((file) => file.name.endsWith('_snapshot.ndjson.gz'));
  const lines = gunzipSync(await readFile(join(out, snapshot?.key ?? '')))
    .toString('utf8')
    .split('\n');
  return lines.slice(1).filter((line) => line !== '');
}

const recordOf = (json: string) => `{"kind":"transaction","shard":"2025-03","data":${json}}`;

describe('the snapshot of an export', () => {
  it("holds each transaction's JSON text as the service sent it", async () => {
    const spaced = transactionText({ id: 'tx-1', date: '2025-03-02T00:00:00.000Z', amount: '1', value: '2' })
      .replaceAll(',"', ', "')
      .replace('"hash":"0xabc"', '"hash" : "0x\\u0061bc\\/"');
    const exact = transactionText({
      id: 'tx-2',
      date: '2025-03-03T00:00:00.000Z',
      amount: '1.50',
      value: '1e3',
    });

    const records = await snapshotRecords([spaced, exact]);

    expect(records).toEqual([recordOf(spaced), recordOf(exact)]);
  });

  it('holds one record per line when the service sends items over several lines', async () => {
    const item = transactionText({ id: 'tx-1', date: '2025-03-02T00:00:00.000Z', amount: '1', value: '2' });
    const indented = JSON.stringify(JSON.parse(item), null, 2);

    const records = await snapshotRecords([indented]);

    expect(records).toEqual([recordOf(item)]);
  });
});
