/**
 * The smallest program that does the Lambda path's job (issue #38's yardstick), shaped as the
 * state machine runs it: a plan, then one task per shard (`concurrency` at a time, in one
 * process, as the benchmark runs ours) that pages its shard, orders its window, gzips its member
 * of the snapshot, renders its CSV rows and stores the lot in S3 as one object; then a finish, in
 * a process of its own, that downloads every shard's object, joins them into one snapshot and one
 * CSV, and stores both in S3. It does what `minimal-export.ts` does in one process (same requests,
 * same item texts, same columns), written plainly: no validation, no retry, no manifest, no
 * README, no checksum; the parts the pieces would be assembled from when they cannot be joined are
 * not stored at all. What our Lambda path costs beside the CLI beyond what this costs beside
 * `minimal-export` is what our path's guarantees and structure cost; what this costs beside
 * `minimal-export` is the shape's own price on this machine.
 */
import { promisify } from 'node:util';
import { gunzip as gunzipAsync, gzip as gzipAsync } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { parse as losslessParse } from 'lossless-json';
import pLimit from 'p-limit';
import { loadS3Sdk } from '../lib/aws-sdk.ts';
import { mayHoldInexactNumbers } from '../lib/domain/index.ts';
import { parseExportRequest, planExport, type Shard } from '../lib/export/index.ts';
import type { PbsClient, PbsCredentials } from '../lib/pbs/index.ts';
import { createS3Client } from '../lib/storage/index.ts';
import {
  extrasOf,
  type Fetched,
  fetchShardItems,
  fixedCells,
  guard,
  HEADER,
  type Item,
  quote,
} from './minimal-export.ts';

const gzip = promisify(gzipAsync);
const gunzip = promisify(gunzipAsync);

/** What the minimal Lambda path needs of the benchmark's task. */
export interface MinimalLambdaTask {
  url: string;
  period: { from: string; to: string };
  concurrency: number;
  s3?: { endpoint: string; bucket: string };
  /** Finish: where the shards stored their objects, and how many there are. */
  jobId?: string;
  shardCount?: number;
}

/** What a shard's object says of itself: its first line. */
interface ShardHead {
  /** The window's extra columns, sorted (its CSV rows hold these). */
  extras: string[];
  rows: number;
  memberBytes: number;
}

/** The S3 client and commands (the SDK loaded at first use, as the project's code loads it). */
async function s3Of(task: MinimalLambdaTask) {
  if (task.s3 === undefined) throw new Error('the minimal Lambda path needs local S3');
  const s3: S3Client = await createS3Client({
    region: 'us-east-1',
    endpoint: task.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const { GetObjectCommand, PutObjectCommand } = await loadS3Sdk();
  return { s3, bucket: task.s3.bucket, GetObjectCommand, PutObjectCommand };
}

/**
 * Plan, then every shard as a task of its own: paged, its window ordered, gzipped and rendered,
 * stored as `minimal/{job}/{shard}`. Returns the bench figures, the job and its shard count.
 */
export async function minimalLambdaFetch(
  task: MinimalLambdaTask,
  client: PbsClient,
  credentials: PbsCredentials,
) {
  const { s3, bucket, PutObjectCommand } = await s3Of(task);
  const started = performance.now();
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  const windows = new Set(plan.shards.map((shard) => shard.window.index));
  if (windows.size !== plan.shards.length)
    throw new Error('the minimal Lambda path takes one shard a window');
  const planMs = performance.now() - started;
  const job = `minimal-${process.pid}-${Date.now()}`;
  let rows = 0;
  let pages = 0;
  const limit = pLimit(task.concurrency);
  await Promise.all(
    plan.shards.map((shard, index) =>
      limit(async () => {
        const fetched = await fetchShardItems(task, client, credentials, shard, request.filters);
        pages += fetched.pages;
        rows += fetched.items.length;
        const body = await shardObject(shard, fetched.items);
        await s3.send(new PutObjectCommand({ Bucket: bucket, Key: `minimal/${job}/${index}`, Body: body }));
      }),
    ),
  );
  s3.destroy();
  return { rows, ms: performance.now() - started, planMs, pages, jobId: job, shards: plan.shards.length };
}

/** A shard's object: its head line, its gzip member of the snapshot, its CSV rows. */
async function shardObject(shard: Shard, fetched: Fetched[]): Promise<Buffer> {
  const seen = new Set<string>();
  const items = fetched.filter((item) => !seen.has(item.id) && seen.add(item.id));
  items.sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const head = `{"kind":"transaction","shard":${JSON.stringify(shard.window.label)},"data":`;
  let lines = '';
  for (const item of items) lines += `${head}${item.text}}\n`;
  const member = await gzip(lines, { level: 3 });
  const extras = items.map(({ item }) => extrasOf(item));
  const paths = [...new Set(extras.flatMap((own) => Object.keys(own)))].sort();
  let csv = '';
  for (const [index, { item, ms }] of items.entries()) csv += csvRow(item, ms, extras[index] ?? {}, paths);
  const description: ShardHead = { extras: paths, rows: items.length, memberBytes: member.length };
  return Buffer.concat([Buffer.from(`${JSON.stringify(description)}\n`), member, Buffer.from(csv)]);
}

/** One CSV row (CRLF ended): the fixed columns, then `paths`' extra cells. */
function csvRow(
  item: Item,
  ms: number,
  extras: Record<string, string | null>,
  paths: readonly string[],
): string {
  let row = fixedCells(item, ms);
  for (const path of paths) row += `,${quote(guard(extras[path] ?? ''))}`;
  return `${row}\r\n`;
}

/**
 * The finish: every shard's object downloaded (`concurrency` at a time), the snapshot (a header
 * member, then each window's member) and the CSV (one header with every window's extra columns,
 * then each window's rows; a window with fewer extra columns rendered again from its member)
 * joined and stored as `minimal/{job}/out/…`.
 */
export async function minimalLambdaFinish(task: MinimalLambdaTask) {
  const { s3, bucket, GetObjectCommand, PutObjectCommand } = await s3Of(task);
  const { jobId: job, shardCount } = task;
  if (job === undefined || shardCount === undefined)
    throw new Error('the finish needs the job of a minimal fetch');
  const started = performance.now();
  const limit = pLimit(task.concurrency);
  const objects = await Promise.all(
    Array.from({ length: shardCount }, (_, index) =>
      limit(async () => {
        const answer = await s3.send(
          new GetObjectCommand({ Bucket: bucket, Key: `minimal/${job}/${index}` }),
        );
        const body = Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
        const newline = body.indexOf(10);
        const head = JSON.parse(body.subarray(0, newline).toString('utf8')) as ShardHead;
        const member = body.subarray(newline + 1, newline + 1 + head.memberBytes);
        return { head, member, csv: body.subarray(newline + 1 + head.memberBytes) };
      }),
    ),
  );
  const header = await gzip(`${JSON.stringify({ kind: 'header', format: 'minimal' })}\n`, { level: 3 });
  const snapshot = Buffer.concat([header, ...objects.map((object) => object.member)]);
  const paths = [...new Set(objects.flatMap((object) => object.head.extras))].sort();
  const csv: Buffer[] = [Buffer.from(`\ufeff${[...HEADER, ...paths.map(guard)].map(quote).join(',')}\r\n`)];
  let rows = 0;
  for (const object of objects) {
    rows += object.head.rows;
    if (object.head.extras.length === paths.length) csv.push(object.csv);
    else csv.push(Buffer.from(await rendered(object.member, paths)));
  }
  await Promise.all([
    s3.send(
      new PutObjectCommand({ Bucket: bucket, Key: `minimal/${job}/out/snapshot.ndjson.gz`, Body: snapshot }),
    ),
    s3.send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: `minimal/${job}/out/transactions.csv`,
        Body: Buffer.concat(csv),
      }),
    ),
  ]);
  s3.destroy();
  return { rows, ms: performance.now() - started };
}

/** A window's CSV rows rendered again from its member, with the run's extra columns. */
async function rendered(member: Buffer, paths: readonly string[]): Promise<string> {
  let csv = '';
  for (const line of (await gunzip(member)).toString('utf8').split('\n')) {
    if (line === '') continue;
    const record = (mayHoldInexactNumbers(line) ? losslessParse(line) : JSON.parse(line)) as { data: Item };
    const item = record.data;
    csv += csvRow(item, Date.parse(item.date as string), extrasOf(item), paths);
  }
  return csv;
}
