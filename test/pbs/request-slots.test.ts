/**
 * The request slots of a scheduled listing (the export's limit on requests in flight), seen from a
 * loopback service in a thread of its own: requests in flight never exceed the limit, and a body
 * that is not JSON (truncated or malformed) is retried within the client's `maxAttempts`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { afterEach, describe, expect, it } from 'vitest';
import { type FetchShard, fetchShards } from '../../lib/export/fetch/fetch.ts';
import { createPbsClient } from '../../lib/pbs/client.ts';
import type { PbsClientConfig } from '../../lib/pbs/config.ts';
import { PbsResponseError } from '../../lib/pbs/errors.ts';
import type { Page, RawTransaction } from '../../lib/pbs/model.ts';
import {
  MAX_IN_FLIGHT,
  type PagingServer,
  type PagingServerOptions,
  startPagingServer,
} from '../support/paging-server.ts';
import { CREDENTIALS, recordingLogger } from './support.ts';

const PAGE_SIZE = 10;
const servers: PagingServer[] = [];
let workDir: string | undefined;

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
  workDir = undefined;
});

async function serve(options: PagingServerOptions): Promise<PagingServer> {
  const server = await startPagingServer(options);
  servers.push(server);
  return server;
}

/** A client of the server, pages of PAGE_SIZE, the rate limit far above what the test sends. */
function clientOf(server: PagingServer, config: Partial<PbsClientConfig> = {}) {
  return createPbsClient({
    baseUrl: server.url,
    credentials: CREDENTIALS,
    shape: {
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: PAGE_SIZE,
        firstPage: 1,
        totalItemsPath: 'totalItems',
        totalPagesPath: 'totalPages',
      },
    },
    requestsPerSecond: 100_000,
    burst: 100,
    retry: { baseDelayMs: 1, maxDelayMs: 5 },
    logger: recordingLogger(),
    ...config,
  });
}

async function drain(pages: AsyncIterable<Page<RawTransaction>>): Promise<Page<RawTransaction>[]> {
  const out: Page<RawTransaction>[] = [];
  for await (const page of pages) out.push(page);
  return out;
}

describe('request slots of a scheduled listing', () => {
  it('keeps requests in flight at the service within the limit over several listings, bad bodies retried', async () => {
    const server = await serve({ total: 5 * PAGE_SIZE + 3, latencyMs: 20, badBodies: { 2: 1, 4: 2 } });
    workDir = await mkdtemp(join(tmpdir(), 'request-slots-'));
    const shards: FetchShard[] = [0, 1, 2, 3].map((index) => ({
      id: `s${index}`,
      window: {
        index,
        start: new Date(Date.UTC(2025, index, 1)),
        end: new Date(Date.UTC(2025, index + 1, 1)),
      },
      protocol: null,
    }));
    const client = clientOf(server, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });

    const fetched = await fetchShards(
      client,
      shards,
      {},
      { workDir, concurrency: 3, shardAttempts: 1, idField: 'id' },
    );

    expect(fetched.map((shard) => shard.rows)).toEqual([53, 53, 53, 53]);
    const log = await server.log();
    // 6 pages a listing, and the bad bodies (1 at page 2, 2 at page 4) each retried once.
    expect(log).toHaveLength(4 * (6 + 3));
    expect(log.filter((entry) => entry.bad)).toHaveLength(4 * 3);
    expect(client.stats.retries).toBe(4 * 3);
    expect(Atomics.load(server.counters, MAX_IN_FLIGHT)).toBe(3);
  });

  it('retries a truncated and a non-JSON body within maxAttempts, and succeeds on the last attempt', async () => {
    const server = await serve({ total: 3 * PAGE_SIZE + 1, latencyMs: 5, badBodies: { 2: 2 } });
    const client = clientOf(server, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });

    const pages = await drain(client.transactionPages({}, { schedule: pLimit(2), readAhead: 2 }));

    expect(pages.map((page) => page.items.length)).toEqual([10, 10, 10, 1]);
    const atPage2 = (await server.log()).filter((entry) => entry.page === 2);
    expect(atPage2.map((entry) => entry.bad)).toEqual([true, true, false]);
    expect(client.stats).toMatchObject({ requestsSent: 6, retries: 2 });
    expect(Atomics.load(server.counters, MAX_IN_FLIGHT)).toBeLessThanOrEqual(2);
  });

  it('gives up on a page with PbsResponseError after maxAttempts bad bodies, no attempt more', async () => {
    const server = await serve({ total: 3 * PAGE_SIZE + 1, latencyMs: 5, badBodies: { 2: 3 } });
    const client = clientOf(server, { retry: { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 5 } });

    const error = await drain(client.transactionPages({}, { schedule: pLimit(2), readAhead: 2 })).catch(
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(PbsResponseError);
    expect(error).toMatchObject({ retryable: true, attempts: 3 });
    const atPage2 = (await server.log()).filter((entry) => entry.page === 2);
    expect(atPage2.map((entry) => entry.bad)).toEqual([true, true, true]);
  });
});
