/**
 * Two `check-closes` at the same moment (issue 37, the restatement's own conditional key): each
 * finds the closed month changed and stages a restatement superseding the same one, but only the
 * check whose restatement record takes the chain's next place publishes; the other discards its
 * set and says the period was restated meanwhile. In a folder (the record linked to its key only
 * if free) and in S3 as `npm run serve` has it (s3rver with its client's `If-None-Match: *`,
 * lib/jobs/local-s3.ts). Both checks are held at the record's creation until both have staged
 * their set, so they race for the one key every time. A record whose set never appeared (a check
 * stopped between the two) holds the place for its lease only.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import {
  CLAIM_LEASE_MS,
  type CloseCheckResult,
  type CloseRecord,
  type CloseStore,
  checkCloses,
  createLocalCloseStore,
  createS3CloseStore,
  RESTATEMENT_RECORD_FORMAT,
  recordKey,
} from '../../lib/close/index.ts';
import { addConditionalWrites } from '../../lib/jobs/index.ts';
import { createPbsClient } from '../../lib/pbs/client.ts';
import { DEFAULT_PROFILES } from '../../lib/simulator/profiles.ts';
import { startSimulator } from '../../lib/simulator/server.ts';
import type { RunningSimulator, SimulatedProfile } from '../../lib/simulator/types.ts';
import { createLocalSink, createS3Sink, type Sink } from '../../lib/storage/index.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';
import { fetchAllItems } from '../support/simulator.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
const PERIOD = 'restatements/acme/2025-10';
type Tx = { id: string; category: string; movements: { symbol: string; amount: string; value: string }[] };

let sim: RunningSimulator;
let dir: string;
/** The folder holding the closed October set and its close record, as the CLI wrote them. */
let books: string;
let clock = Date.parse('2025-11-02T06:00:00.000Z');
const now = () => new Date(clock);

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-check-race-'));
  books = join(dir, 'books');
  sim = await startSimulator({
    now: () => clock,
    maxClockSkewMs: Number.MAX_SAFE_INTEGER,
    rateLimitPerSecond: 0,
  });
  await cli('run', '--profile', 'acme', '--period', '2025-10', '--format', 'csv', '--out', books);
  const [runId] = await readdir(join(books, 'reports/acme/2025-10'));
  clock = Date.parse('2025-11-03T09:00:00.000Z');
  await cli(
    'close',
    '--profile',
    'acme',
    '--period',
    '2025-10',
    '--run',
    runId as string,
    '--by',
    'ann',
    '--out',
    books,
  );
  // The service then doubles the value of one October trade.
  const october = (await fetchAllItems(sim.url, acme, '/v2/transactions', [
    ['startDate', '2025-10-01T00:00:00.000Z'],
    ['endDate', '2025-11-01T00:00:00.000Z'],
  ])) as Tx[];
  const trade = october.find((tx) => tx.category === 'trade') as Tx;
  const doubled = trade.movements.map((m) => ({ ...m, value: new Big(m.value).times(2).toFixed(2) }));
  sim.editPast([
    {
      kind: 'modify',
      profile: 'acme',
      at: '2025-11-10T12:00:00.000Z',
      id: trade.id,
      set: { movements: doubled },
    },
  ]);
  clock = Date.parse('2025-12-01T02:00:00.000Z');
}, 300_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<string> {
  const out: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => out.push(text) },
    env: { PBS_BASE_URL: sim.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret },
    now,
  };
  const code = await main(argv, io);
  if (code !== 0) throw new Error(`pbs-export ${argv.join(' ')} exited ${code}: ${out.join('')}`);
  return out.join('');
}

/**
 * Stores whose record creation waits until `count` checks have come to it: every check has then
 * read the chain and staged its restatement, and they race for the record's key.
 */
function racingStores(count: number, store: () => CloseStore): CloseStore[] {
  let arrived = 0;
  let release!: () => void;
  const all = new Promise<void>((resolve) => {
    release = resolve;
  });
  return Array.from({ length: count }, () => {
    const inner = store();
    return {
      ...inner,
      async createOnce(key: string, text: string) {
        arrived += 1;
        if (arrived === count) release();
        await all;
        return inner.createOnce(key, text);
      },
    };
  });
}

/** A check of acme's closes at the test's instant, against `store` and `sink`. */
function check(store: CloseStore, sink: Sink): Promise<CloseCheckResult> {
  const client = createPbsClient({
    baseUrl: sim.url,
    credentials: { apiKey: acme.apiKey, apiSecret: acme.apiSecret },
  });
  return checkCloses({ store, sink, profile: 'acme', now, timeline: async () => client });
}

/** The two results of a race, the one that published first. */
function byOutcome(results: CloseCheckResult[]): [CloseCheckResult, CloseCheckResult] {
  const sorted = [...results].sort((a, b) => b.restated.length - a.restated.length);
  return sorted as [CloseCheckResult, CloseCheckResult];
}

/** What the race must leave: one restatement published, one record naming it, the other told so. */
async function expectOneRestatement(
  results: CloseCheckResult[],
  stored: () => Promise<{ sets: string[]; records: string[]; record: (key: string) => Promise<string> }>,
) {
  const [won, lost] = byOutcome(results);
  expect(results.map((r) => r.restated.length).sort()).toEqual([0, 1]);
  const prefix = won.restated[0]?.prefix as string;
  const close = won.restated[0]?.close as CloseRecord;
  expect(lost.meanwhile).toEqual([{ close, prefix, same: true, recordedAt: expect.any(String) }]);
  expect(lost.line).toBe(
    `1 closed period checked: acme 2025-10 restated meanwhile by another check, recorded at ${lost.meanwhile[0]?.recordedAt} (${prefix})`,
  );
  const { sets, records, record } = await stored();
  expect(sets).toEqual([prefix]);
  expect(records).toEqual([recordKey(close, 1, 1)]);
  expect(JSON.parse(await record(recordKey(close, 1, 1)))).toMatchObject({
    format: RESTATEMENT_RECORD_FORMAT,
    close: close.id,
    sequence: 1,
    attempt: 1,
    prefix,
    supersedes: null,
  });
  return { prefix, close };
}

describe('two check-closes at the same moment, in a folder', () => {
  let folder: string;
  const stored = async () => {
    const keys = await createLocalSink(folder).list(`${PERIOD}/`);
    return {
      sets: keys.filter((k) => k.endsWith('/manifest.json')).map((k) => k.slice(0, -'/manifest.json'.length)),
      records: keys.filter((k) => k.startsWith(`${PERIOD}/records/`)),
      record: (key: string) => readFile(join(folder, key), 'utf8'),
    };
  };
  beforeAll(async () => {
    folder = join(dir, 'folder');
    await copyFolder(books, folder);
  });

  it('publishes one restatement and tells the other check the period was restated meanwhile', async () => {
    const stores = racingStores(2, () => createLocalCloseStore(folder));

    const results = await Promise.all(stores.map((store) => check(store, createLocalSink(folder))));

    await expectOneRestatement(results, stored);
    // Nothing staged is left beside the set and its record.
    expect((await readdir(join(folder, PERIOD))).filter((name) => name.startsWith('.'))).toEqual([]);
  });

  it('publishes nothing when checked again', async () => {
    const again = await check(createLocalCloseStore(folder), createLocalSink(folder));
    expect(again.line).toBe('1 closed period checked: no change');
    expect((await stored()).sets).toHaveLength(1);
  });
});

describe('two check-closes at the same moment, in S3 as serve has it (If-None-Match: *)', () => {
  let s3: S3TestServer;
  let client: S3Client;
  const stored = async () => {
    const keys = await createS3Sink({ client, bucket: s3.bucket }).list(`${PERIOD}/`);
    const store = createS3CloseStore({ client, bucket: s3.bucket });
    return {
      sets: keys.filter((k) => k.endsWith('/manifest.json')).map((k) => k.slice(0, -'/manifest.json'.length)),
      records: keys.filter((k) => k.startsWith(`${PERIOD}/records/`)),
      record: async (key: string) => String(await store.read(key)),
    };
  };
  beforeAll(async () => {
    s3 = await startS3rver();
    // serve's S3 client: s3rver, with S3's conditional writes added on the client.
    client = s3.createClient();
    addConditionalWrites(client, s3.client);
    for (const file of await filesUnder(books)) {
      const key = relative(books, file).split('\\').join('/');
      await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: await readFile(file) }));
    }
  }, 60_000);
  afterAll(async () => {
    await s3?.close();
  });

  it('publishes one restatement and tells the other check the period was restated meanwhile', async () => {
    const stores = racingStores(2, () => createS3CloseStore({ client, bucket: s3.bucket }));

    const results = await Promise.all(
      stores.map((store) => check(store, createS3Sink({ client, bucket: s3.bucket }))),
    );

    await expectOneRestatement(results, stored);
  });
});

describe('a restatement record whose set never appeared (a check stopped between the two)', () => {
  let folder: string;
  let close: CloseRecord;
  const stoppedAt = Date.parse('2025-12-01T02:00:00.000Z');
  beforeAll(async () => {
    folder = join(dir, 'stopped');
    await copyFolder(books, folder);
    [close] = (await createLocalCloseStore(folder).records()) as [CloseRecord];
    // What a check killed after creating its record and before putting its set in place leaves.
    const key = recordKey(close, 1, 1);
    await mkdir(join(folder, key, '..'), { recursive: true });
    await writeFile(
      join(folder, key),
      JSON.stringify({
        format: RESTATEMENT_RECORD_FORMAT,
        close: close.id,
        profile: 'acme',
        period: '2025-10',
        sequence: 1,
        attempt: 1,
        prefix: `${PERIOD}/20251201T020000Z-stoppd`,
        supersedes: null,
        checkedAt: new Date(stoppedAt).toISOString(),
        claimedAt: new Date(stoppedAt).toISOString(),
        transactions: '0'.repeat(64),
      }),
    );
  });

  it('holds the place for its lease: a check then publishes nothing and says another check is restating the period', async () => {
    clock = stoppedAt + 60_000;
    const result = await check(createLocalCloseStore(folder), createLocalSink(folder));
    expect(result.restated).toEqual([]);
    expect(result.meanwhile).toEqual([
      {
        close,
        prefix: `${PERIOD}/20251201T020000Z-stoppd`,
        same: false,
        recordedAt: new Date(stoppedAt).toISOString(),
      },
    ]);
  });

  it('lets the next check take the place after the lease, as the next attempt', async () => {
    clock = stoppedAt + CLAIM_LEASE_MS + 60_000;
    const result = await check(createLocalCloseStore(folder), createLocalSink(folder));
    expect(result.restated).toHaveLength(1);
    const records = (await createLocalSink(folder).list(`${PERIOD}/records/`)).sort();
    expect(records).toEqual([recordKey(close, 1, 1), recordKey(close, 1, 2)]);
  });
});

describe('a check whose restatement set cannot be put in place', () => {
  let folder: string;
  beforeAll(async () => {
    folder = join(dir, 'failed');
    await copyFolder(books, folder);
  });

  it('removes its own record, so the next check takes the place at once', async () => {
    const sink = createLocalSink(folder);
    const failing: Sink = {
      ...sink,
      async openSet(prefix) {
        const set = await sink.openSet(prefix);
        return { ...set, prefix: set.prefix, commit: async () => Promise.reject(new Error('disk full')) };
      },
    };

    await expect(check(createLocalCloseStore(folder), failing)).rejects.toThrow('disk full');
    expect(await sink.list(`${PERIOD}/`)).toEqual([]);

    const next = await check(createLocalCloseStore(folder), sink);
    expect(next.restated).toHaveLength(1);
    const [close] = await createLocalCloseStore(folder).records();
    expect(await sink.list(`${PERIOD}/records/`)).toEqual([recordKey(close as CloseRecord, 1, 1)]);
  });
});

async function filesUnder(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    const full = join(root, entry.name);
    if (entry.isDirectory()) out.push(...(await filesUnder(full)));
    else out.push(full);
  }
  return out;
}

async function copyFolder(from: string, to: string): Promise<void> {
  for (const file of await filesUnder(from)) {
    const target = join(to, relative(from, file));
    await mkdir(join(target, '..'), { recursive: true });
    await writeFile(target, await readFile(file));
  }
}
