/**
 * The rates files kept in the reports bucket: `rates/{source}/{sha256}/{name}`, `name` being the
 * file's published name (`eurofxref-hist.zip`, `monthly_xml_2024-05.xml`). The SHA-256 in the
 * key means a file is never overwritten by different content of the same name: each version the
 * owner published stays, and a run's manifest can name the exact bytes it was converted with.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { ValidationError } from '../errors.ts';
import {
  isDemoRatesFile,
  loadRates,
  MAX_RATES_FILE_BYTES,
  parseRatesFile,
  type RateSource,
  type RatesFileInput,
  type RateTable,
} from '../fx/index.ts';

/** Top-level prefix of the kept rates files. */
export const RATES_PREFIX = 'rates/';

/** Where a source's files are kept: `rates/{source}/`. */
export const sourcePrefix = (source: RateSource): string => `${RATES_PREFIX}${source}/`;

/** The key of one kept file. */
export const keptKey = (source: RateSource, sha256: string, name: string): string =>
  `${sourcePrefix(source)}${sha256}/${name}`;

const KEPT_KEY = /^rates\/(ecb|hmrc)\/([0-9a-f]{64})\/([^/]{1,255})$/;

/** One kept file, as listed. */
export interface KeptFile {
  key: string;
  name: string;
  sha256: string;
  lastModified: Date;
  /** Its size as listed, in bytes (absent when the listing does not say). */
  bytes?: number;
}

/** Where the kept files are. */
export interface KeptRatesStore {
  s3: S3Client;
  bucket: string;
}

/** The kept files of `source`, page by page as the bucket lists them (keys of another shape ignored). */
async function* keptFiles(store: KeptRatesStore, source: RateSource): AsyncGenerator<KeptFile> {
  const { paginateListObjectsV2 } = await loadS3Sdk();
  const pages = paginateListObjectsV2(
    { client: store.s3 },
    { Bucket: store.bucket, Prefix: sourcePrefix(source) },
  );
  for await (const page of pages) {
    for (const object of page.Contents ?? []) {
      const match = KEPT_KEY.exec(object.Key ?? '');
      if (match === null) continue;
      yield {
        key: object.Key as string,
        sha256: match[2] as string,
        name: match[3] as string,
        lastModified: object.LastModified ?? new Date(0),
        ...(object.Size === undefined ? {} : { bytes: object.Size }),
      };
    }
  }
}

/** Every kept file of `source` (keys of another shape under the prefix are ignored). */
export async function listKept(store: KeptRatesStore, source: RateSource): Promise<KeptFile[]> {
  const files: KeptFile[] = [];
  for await (const file of keptFiles(store, source)) files.push(file);
  return files;
}

/** What the bucket keeps of one source, as the API lists it (the portal offers the sources kept). */
export interface KeptSourceSummary {
  source: RateSource;
  /** Published names kept (a name's versions count once: a run converts with the newest). */
  files: number;
  /** Whether every name kept is a DEMO rates file (made up, not published). */
  demo: boolean;
  /** When the newest file was kept; absent when none is. */
  newest?: Date;
}

/** What the bucket keeps of each of `sources`, in their order (`files: 0` for one it keeps nothing of). */
export async function keptSummary(
  store: KeptRatesStore,
  sources: readonly RateSource[],
): Promise<KeptSourceSummary[]> {
  return Promise.all(
    sources.map(async (source): Promise<KeptSourceSummary> => {
      const kept = await listKept(store, source);
      const names = new Set(kept.map((file) => file.name));
      const newest = kept.reduce<Date | undefined>(
        (last, file) => (last === undefined || file.lastModified > last ? file.lastModified : last),
        undefined,
      );
      return {
        source,
        files: names.size,
        demo: names.size > 0 && [...names].every(isDemoRatesFile),
        ...(newest !== undefined ? { newest } : {}),
      };
    }),
  );
}

/** Whether the bucket keeps at least one file of `source` (the API checks before a job starts). */
export async function hasKeptRates(store: KeptRatesStore, source: RateSource): Promise<boolean> {
  for await (const _ of keptFiles(store, source)) return true;
  return false;
}

/**
 * The candidates for the version of each published name a run converts with: the files kept last
 * (the ECB's history file holds every earlier day, so its newest version is the one to use; an
 * HMRC month's newest is its latest correction). Several per name only when stored within the
 * same second (S3's times are to the second); {@link readKeptRates} then tells them apart.
 */
export function newestKept(kept: readonly KeptFile[]): KeptFile[][] {
  const newest = new Map<string, KeptFile[]>();
  for (const file of kept) {
    const current = newest.get(file.name)?.[0];
    const at = file.lastModified.getTime();
    if (current === undefined || at > current.lastModified.getTime()) newest.set(file.name, [file]);
    else if (at === current.lastModified.getTime()) newest.get(file.name)?.push(file);
  }
  return [...newest.keys()].sort().map((name) => newest.get(name) as KeptFile[]);
}

/** Exactly the kept files `files` lists (name → SHA-256, as a request or manifest records them). */
function listedKept(kept: readonly KeptFile[], files: Readonly<Record<string, string>>): KeptFile[] {
  return Object.entries(files).map(([name, sha256]) => {
    const found = kept.find((file) => file.sha256 === sha256);
    if (found === undefined) {
      throw new ValidationError(
        'gains.rates',
        `rates file ${name} (sha256 ${sha256}) is not kept in the bucket under ${RATES_PREFIX}`,
      );
    }
    return { ...found, name };
  });
}

/** A run's rates read from the kept files: the table and the files as `gains.rates.files` records them. */
export interface KeptRates {
  table: RateTable;
  files: Record<string, string>;
}

/**
 * Reads the kept files of `source` a run converts with into one table: the newest version of each
 * published name ({@link newestKept}; of versions stored the same second, the one whose rates
 * reach the later day), or with `files` exactly those. Throws a `ValidationError` of
 * `gains.rates` when none is kept, or a listed one is not.
 */
export async function readKeptRates(
  store: KeptRatesStore,
  source: RateSource,
  files?: Readonly<Record<string, string>>,
): Promise<KeptRates> {
  const kept = await listKept(store, source);
  const groups = files === undefined ? newestKept(kept) : listedKept(kept, files).map((file) => [file]);
  if (groups.length === 0) throw noKeptRates(source);
  const read = async (file: KeptFile): Promise<RatesFileInput> => {
    // Refused before it is downloaded: no published rates file is that large (lib/fx's limit).
    if (file.bytes !== undefined && file.bytes > MAX_RATES_FILE_BYTES)
      throw tooLarge(file.key, `is ${file.bytes} bytes`);
    const { GetObjectCommand } = await loadS3Sdk();
    const object = await store.s3.send(new GetObjectCommand({ Bucket: store.bucket, Key: file.key }));
    const bytes = await readAtMost(object, file.key, MAX_RATES_FILE_BYTES);
    // The key names the content (a copy seeded by hand could name another): what is recorded is what was read.
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    if (sha256 !== file.sha256) {
      throw new ValidationError(
        'gains.rates',
        `rates file ${file.key}: its content's SHA-256 is ${sha256}, not the one its key names`,
      );
    }
    return { name: file.name, bytes, source };
  };
  const inputs = await Promise.all(groups.map(async (group) => latestOf(await Promise.all(group.map(read)))));
  const table = loadRates(inputs);
  return { table, files: Object.fromEntries(table.files.map((file) => [file.name, file.sha256])) };
}

/** A GetObject's body, refused by its length or once more than `max` bytes have come (the rest not read). */
async function readAtMost(
  object: { Body?: unknown; ContentLength?: number },
  key: string,
  max: number,
): Promise<Uint8Array> {
  const body = object.Body as (AsyncIterable<Uint8Array> & { destroy?: () => void }) | undefined;
  if (body === undefined) return new Uint8Array();
  if (object.ContentLength !== undefined && object.ContentLength > max) {
    body.destroy?.();
    throw tooLarge(key, `is ${object.ContentLength} bytes`);
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += chunk.byteLength;
    if (total > max) {
      body.destroy?.();
      throw tooLarge(key, `holds more than ${max} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

/** The refusal of a kept file over the limit, naming its key; `size` says how large it is. */
function tooLarge(key: string, size: string): ValidationError {
  return new ValidationError(
    'gains.rates',
    `rates file ${key} ${size}, more than the ${MAX_RATES_FILE_BYTES / (1024 * 1024)} MiB a rates file may hold (no published rates file is that large): remove it from ${RATES_PREFIX}`,
  );
}

/** Of versions of one name, the one whose rates reach the latest day (the first of equals). */
function latestOf(versions: readonly RatesFileInput[]): RatesFileInput {
  if (versions.length === 1) return versions[0] as RatesFileInput;
  const lastDay = (input: RatesFileInput) =>
    parseRatesFile(input).parsed.periods.reduce(
      (last, period) => (period.last > last ? period.last : last),
      '',
    );
  return versions.reduce((best, input) => (lastDay(input) > lastDay(best) ? input : best));
}

/** The refusal of a request for `source` rates when the bucket keeps none. */
export function noKeptRates(source: RateSource): ValidationError {
  return new ValidationError(
    'gains.rates',
    `no ${source.toUpperCase()} rates files are kept yet (${sourcePrefix(source)} in the reports bucket is empty): wait for the daily rates fetch, or copy the published files there (see README)`,
  );
}
