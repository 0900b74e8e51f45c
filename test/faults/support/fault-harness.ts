/**
 * What the fault tests share: a reference export made without faults (and a reference fetch
 * straight from the client), readers of a run's files from a folder or S3, and the checks that
 * decide whether a run published exactly the service's data or failed cleanly.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import Big from 'big.js';
import { code as isoCurrency } from 'currency-codes';
import { PbsExportError } from '../../../lib/errors.ts';
import { type ExportRequest, type Manifest, runExport } from '../../../lib/export/index.ts';
import { createPbsClient, getPath, type ServiceShapeOverrides } from '../../../lib/pbs/index.ts';
import { startSimulator } from '../../../lib/simulator/index.ts';
import type { SimulatedProfile, SimulatorOptions } from '../../../lib/simulator/types.ts';
import { createLocalSink } from '../../../lib/storage/index.ts';

/**
 * The clock of every fault test's export: the minute the suite started (s3rver checks the expiry
 * of presigned links against the real time).
 */
export const FAULT_NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000);

/** The GAPS.md default shape with small pages, so faults hit many requests. */
export function smallPages(pageSize: number): ServiceShapeOverrides {
  return {
    pagination: {
      style: 'page',
      pageParam: 'page',
      pageSizeParam: 'pageSize',
      pageSize,
      firstPage: 1,
      totalItemsPath: 'totalItems',
      totalPagesPath: 'totalPages',
    },
  };
}

/** A run's files, by name relative to its folder (`manifest.json`, `acme_2024_transactions.csv`, …). */
export type RunFiles = Map<string, Buffer>;

/** What a run must equal: the service's data read without faults, and a clean export of it. */
export interface Reference {
  /** Every transaction of the windows, straight from the client, as JSON text, by date then id. */
  transactions: string[];
  /** The CSV files of a clean export, by name. */
  csv: Map<string, Buffer>;
  /** The clean export's exact totals, also checked against a big.js sum of `transactions`. */
  totals: Record<string, string>;
  windows: Manifest['windows'];
}

const references = new Map<string, Promise<Reference>>();

/** Options of a reference: the simulator's seed and shape, the profile, the request. */
export interface ReferenceOptions {
  seed?: number;
  shape?: ServiceShapeOverrides;
  profiles?: SimulatedProfile[];
  profile: string;
  request: ExportRequest;
}

/**
 * The reference of an export (memoised per options): a clean simulator of the same seed, shape
 * and profiles, a clean export to a scratch folder, and a fetch of every window straight from
 * the client. Throws when the clean export's totals are not the exact sums of the fetched data.
 */
export function referenceFor(options: ReferenceOptions): Promise<Reference> {
  const key = JSON.stringify(options);
  let reference = references.get(key);
  if (reference === undefined) {
    reference = buildReference(options);
    references.set(key, reference);
  }
  return reference;
}

async function buildReference(options: ReferenceOptions): Promise<Reference> {
  const simulator = await startSimulator({
    rateLimitPerSecond: 100_000,
    seed: options.seed ?? 1,
    ...(options.shape ? { shape: options.shape } : {}),
    ...(options.profiles ? { profiles: options.profiles } : {}),
  });
  const outDir = await mkdtemp(join(tmpdir(), 'pbs-faults-ref-'));
  try {
    const client = clientFor(simulator.url, simulator.profiles, options.profile, options.shape);
    const result = await runExport(options.request, {
      client,
      sink: createLocalSink(outDir),
      fields: client.shape.fields,
      apiBase: simulator.url,
      now: () => FAULT_NOW,
      runId: 'reference',
    });
    const files = await readLocalRun(outDir, result.prefix);
    const csv = new Map([...files].filter(([name]) => name.endsWith('.csv')));
    const seen = new Set<string>();
    const fetched: { at: number; id: string; text: string }[] = [];
    const { fields } = client.shape;
    for (const window of result.manifest.windows) {
      const start = Date.parse(window.start);
      const end = Date.parse(window.end);
      for await (const item of client.transactions({
        window: { start: new Date(start), end: new Date(end) },
        ...(options.request.filters.tokens ? { tokens: options.request.filters.tokens } : {}),
      })) {
        const id = String(getPath(item, fields.id));
        const at = Date.parse(String(getPath(item, fields.date)));
        if (at < start || at >= end || seen.has(id)) continue;
        seen.add(id);
        fetched.push({ at, id, text: JSON.stringify(item) });
      }
    }
    fetched.sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const transactions = fetched.map((entry) => entry.text);
    const totals = result.manifest.totals ?? {};
    const summed = exactTotals(transactions, fields);
    if (JSON.stringify(sortKeys(summed)) !== JSON.stringify(sortKeys(totals))) {
      throw new Error(
        `reference totals ${JSON.stringify(totals)} differ from the sums ${JSON.stringify(summed)}`,
      );
    }
    return { transactions, csv, totals, windows: result.manifest.windows };
  } finally {
    await simulator.close();
    await rm(outDir, { recursive: true, force: true });
  }
}

/** A client of `profile` on a simulator, without faults-specific settings. */
export function clientFor(
  url: string,
  profiles: readonly SimulatedProfile[],
  profile: string,
  shape?: ServiceShapeOverrides,
  overrides: Partial<Parameters<typeof createPbsClient>[0]> = {},
) {
  const simulated = profiles.find((p) => p.name === profile);
  if (!simulated) throw new Error(`no simulated profile ${profile}`);
  return createPbsClient({
    baseUrl: url,
    credentials: {
      apiKey: simulated.apiKey,
      apiSecret: simulated.apiSecret,
      profileGuid: simulated.profileGuid,
    },
    ...(shape ? { shape } : {}),
    requestsPerSecond: 100_000,
    burst: 100,
    sleep: async () => {},
    ...overrides,
  });
}

/** Value and fee totals per currency, summed with big.js from the raw transactions. */
/**
 * The manifest's totals worked out from the service's data: per currency, each amount rounded
 * once to the currency's ISO 4217 minor unit (half to even, digits from `currency-codes`), then
 * summed exactly and shown to the minor unit.
 */
function exactTotals(
  transactions: readonly string[],
  fields: { valueAmount: string; valueCurrency: string; feeAmount: string; feeCurrency: string },
): Record<string, string> {
  const value = new Map<string, Big>();
  const fees = new Map<string, Big>();
  const digitsOf = (currency: string) => isoCurrency(currency)?.digits;
  const add = (into: Map<string, Big>, other: Map<string, Big>, currency: unknown, amount: unknown) => {
    if (typeof currency !== 'string' || currency === '') return;
    if (!other.has(currency)) other.set(currency, new Big(0));
    const current = into.get(currency) ?? new Big(0);
    const digits = digitsOf(currency);
    const exact = typeof amount === 'string' && amount !== '' ? new Big(amount) : null;
    const shown = exact === null || digits === undefined ? exact : exact.round(digits, Big.roundHalfEven);
    into.set(currency, shown === null ? current : current.plus(shown));
  };
  for (const text of transactions) {
    const item = JSON.parse(text) as unknown;
    add(value, fees, getPath(item, fields.valueCurrency), getPath(item, fields.valueAmount));
    add(fees, value, getPath(item, fields.feeCurrency), getPath(item, fields.feeAmount));
  }
  const totals: Record<string, string> = {};
  for (const currency of new Set([...value.keys(), ...fees.keys()])) {
    const digits = digitsOf(currency);
    const text = (sum: Big) => (digits === undefined ? sum.toFixed() : sum.toFixed(digits));
    totals[`value (${currency})`] = text(value.get(currency) ?? new Big(0));
    totals[`fees (${currency})`] = text(fees.get(currency) ?? new Big(0));
  }
  return totals;
}

function sortKeys(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every file under `prefix` of a local sink folder (partial temp files included, if any). */
export async function readLocalRun(outDir: string, prefix: string): Promise<RunFiles> {
  const dir = join(outDir, ...prefix.split('/'));
  const files: RunFiles = new Map();
  let entries: string[];
  try {
    entries = (await readdir(dir, { recursive: true })) as string[];
  } catch {
    return files;
  }
  for (const name of entries.sort()) {
    try {
      files.set(name.split('\\').join('/'), await readFile(join(dir, name)));
    } catch {
      // a directory
    }
  }
  return files;
}

/** Every object under `prefix/` of a bucket, by name relative to the prefix. */
export async function readS3Run(client: S3Client, bucket: string, prefix: string): Promise<RunFiles> {
  const files: RunFiles = new Map();
  for (const key of await listKeys(client, bucket, `${prefix}/`)) {
    const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    files.set(key.slice(prefix.length + 1), Buffer.from((await object.Body?.transformToByteArray()) ?? []));
  }
  return files;
}

/** Every key under `prefix` of a bucket, sorted. */
export async function listKeys(client: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token !== undefined);
  return keys.sort();
}

/** Problems of a finished run against its reference; `data` says whether any is about the data. */
export interface RunCheck {
  problems: string[];
  /** True when the published data (transactions, CSV rows, totals) differs from the reference. */
  dataLost: boolean;
}

/**
 * Checks a run that claims to have finished: a manifest listing every other file with its
 * sha256 and nothing else in the folder; snapshot transactions equal to the reference fetch, in
 * order; every CSV byte-for-byte equal to the clean export's; totals equal to the last digit.
 */
export function checkFinishedRun(files: RunFiles, reference: Reference): RunCheck {
  const problems: string[] = [];
  let dataLost = false;
  const manifestBytes = files.get('manifest.json');
  if (manifestBytes === undefined) return { problems: ['no manifest.json'], dataLost: false };
  const manifest = JSON.parse(manifestBytes.toString('utf8')) as Manifest;
  const listed = new Set(manifest.files.map((file) => file.name));
  for (const file of manifest.files) {
    const bytes = files.get(file.name);
    if (bytes === undefined) problems.push(`${file.name}: listed in the manifest but missing`);
    else if (sha256(bytes) !== file.sha256) problems.push(`${file.name}: sha256 differs from the manifest`);
  }
  for (const name of files.keys()) {
    if (name !== 'manifest.json' && !listed.has(name)) problems.push(`${name}: not listed in the manifest`);
  }
  const snapshotName = [...listed].find((name) => name.endsWith('_snapshot.ndjson.gz'));
  const snapshot = snapshotName === undefined ? undefined : files.get(snapshotName);
  if (snapshot === undefined) {
    problems.push('no snapshot');
    dataLost = true;
  } else {
    const transactions = gunzipSync(snapshot)
      .toString('utf8')
      .split('\n')
      .filter((line) => line.startsWith('{"kind":"transaction"'))
      .map((line) => JSON.stringify((JSON.parse(line) as { data: unknown }).data));
    const difference = firstDifference(transactions, reference.transactions);
    if (difference !== null) {
      problems.push(`snapshot transactions differ from the reference fetch: ${difference}`);
      dataLost = true;
    }
  }
  for (const [name, expected] of reference.csv) {
    const actual = files.get(name);
    if (actual === undefined) {
      problems.push(`${name}: missing`);
      dataLost = true;
    } else if (!actual.equals(expected)) {
      const difference = firstDifference(lines(actual), lines(expected));
      problems.push(`${name}: differs from the clean export: ${difference ?? 'bytes differ'}`);
      dataLost = true;
    }
  }
  if (JSON.stringify(sortKeys(manifest.totals ?? {})) !== JSON.stringify(sortKeys(reference.totals))) {
    problems.push(
      `totals ${JSON.stringify(manifest.totals)} differ from ${JSON.stringify(reference.totals)}`,
    );
    dataLost = true;
  }
  return { problems, dataLost };
}

/**
 * Checks a run that failed: a typed error with a message (or the crash the test injected), no
 * credential in it, and nothing left under the run's folder (no manifest, no report).
 */
export function checkCleanFailure(
  error: unknown,
  files: RunFiles,
  secrets: readonly string[] = [],
  options: { injected?: boolean } = {},
): string[] {
  const problems: string[] = [];
  if (!options.injected && !(error instanceof PbsExportError)) {
    problems.push(`not a typed error: ${String(error)}`);
  } else if (!(error instanceof Error) || error.message === '') {
    problems.push('an error without a message');
  }
  const text = error instanceof Error ? `${error.message} ${error.stack ?? ''}` : String(error);
  for (const secret of secrets)
    if (secret !== '' && text.includes(secret)) problems.push('a secret in the error');
  if (files.has('manifest.json')) problems.push('a manifest after a failure');
  const left = [...files.keys()].filter((name) => name !== 'manifest.json');
  if (left.length > 0) problems.push(`files left under the run's folder: ${left.join(', ')}`);
  return problems;
}

function lines(bytes: Buffer): string[] {
  return bytes.toString('utf8').split('\r\n');
}

function firstDifference(actual: readonly string[], expected: readonly string[]): string | null {
  const length = Math.max(actual.length, expected.length);
  for (let k = 0; k < length; k += 1) {
    if (actual[k] !== expected[k]) {
      return `${actual.length} vs ${expected.length} entries; first difference at ${k}: ${String(actual[k]).slice(0, 120)} ≠ ${String(expected[k]).slice(0, 120)}`;
    }
  }
  return null;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Simulator options of a fault test: a generous rate limit so only injected 429s happen. */
export function simulatorOptions(options: SimulatorOptions = {}): SimulatorOptions {
  return { rateLimitPerSecond: 100_000, ...options };
}

/** Decides, per S3 command, whether to inject the failure; `fired` counts the injections. */
export interface S3FaultRule {
  when: (commandName: string, input: Record<string, unknown>) => boolean;
  /** Failures to inject before letting matching commands through (default 1). */
  times?: number;
  /** `before`: the command is never sent; `after`: it is carried out but its answer is lost. */
  phase?: 'before' | 'after';
}

/**
 * Makes `client` fail the commands a rule matches, `times` times, with a 500 `InternalError`,
 * before sending them or after S3 carried them out (the answer lost). Outside the SDK's retries,
 * so the caller sees the failure. Returns a counter of the failures injected.
 */
export function injectS3Faults(client: S3Client, rule: S3FaultRule): { fired: number } {
  const counter = { fired: 0 };
  const times = rule.times ?? 1;
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const matches =
        counter.fired < times && rule.when(context.commandName ?? '', args.input as Record<string, unknown>);
      if (!matches) return next(args);
      counter.fired += 1;
      const error = Object.assign(new Error('We encountered an internal error. Please try again.'), {
        name: 'InternalError',
        $metadata: { httpStatusCode: 500 },
      });
      if (rule.phase === 'after') await next(args);
      throw error;
    },
    { step: 'initialize', name: `testS3Fault${Math.random().toString(36).slice(2)}` },
  );
  return counter;
}
