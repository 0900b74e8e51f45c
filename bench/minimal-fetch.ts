/**
 * The floor of the client's CPU: the raw fetch's requests (same plan, shards, concurrency, page
 * size and HMAC signing) sent with the global `fetch`, each body read with `response.text()` and
 * parsed with `JSON.parse`, and nothing else: no lossless check, no validation, no retry, no rate
 * limit, no item texts. What the client costs above this is what its guarantees cost.
 *
 * Imports only lib functions that the benchmark's older baselines have too (`bench:cpu --against`).
 */
import pLimit from 'p-limit';
import { parseExportRequest, planExport, shardQuery } from '../lib/export/index.ts';
import type { PbsClient, PbsCredentials } from '../lib/pbs/index.ts';
import { transactionParams } from '../lib/pbs/query.ts';
import { signRequest } from '../lib/pbs/signing.ts';
import { endpointTarget, signedUrl } from '../lib/pbs/transport.ts';

/** What the minimal fetch needs of the benchmark's task. */
export interface MinimalFetchTask {
  url: string;
  period: { from: string; to: string };
  concurrency: number;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Pages every shard of the export's plan (planned through `client`, as the raw fetch plans) with
 * the bare minimum per page; stops a shard on a short page, as the client does.
 */
export async function minimalFetch(task: MinimalFetchTask, client: PbsClient, credentials: PbsCredentials) {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  const { shape } = client;
  const pagination = shape.pagination;
  if (pagination.style !== 'page') throw new Error('the minimal fetch pages by page number only');
  const itemsPath = shape.itemsPath === null || shape.itemsPath === '' ? [] : shape.itemsPath.split('.');
  const headers = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  const started = performance.now();
  let rows = 0;
  let pages = 0;
  const limit = pLimit(task.concurrency);
  const shardPages = async (params: readonly (readonly [string, string])[]) => {
    for (let page = pagination.firstPage; ; page++) {
      const target = endpointTarget(task.url, '/v2/transactions', [
        ...params,
        [pagination.pageParam, String(page)],
        [pagination.pageSizeParam, String(pagination.pageSize)],
      ]);
      const timestamp = Date.now();
      const signature = signRequest(target.signedPath, timestamp, credentials.apiSecret);
      const response = await fetch(signedUrl(target, timestamp, signature), { headers });
      if (!response.ok) throw new Error(`minimal fetch: HTTP ${response.status}`);
      let items: unknown = JSON.parse(await response.text());
      for (const key of itemsPath) items = (items as Record<string, unknown>)[key];
      const count = (items as unknown[]).length;
      rows += count;
      pages += 1;
      if (count < pagination.pageSize) return;
    }
  };
  await Promise.all(
    plan.shards.map((shard) =>
      limit(() => shardPages(transactionParams(shardQuery(shard, request.filters), shape, silent))),
    ),
  );
  return { rows, ms: performance.now() - started, pages };
}
