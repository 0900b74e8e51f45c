/**
 * The scheduled fetch of the published rates files: each file downloaded from its owner, parsed
 * with `lib/fx` (a file that is not in a published layout is refused, never kept), and kept in the
 * bucket under its SHA-256 (`kept.ts`), so the same content fetched again writes nothing.
 */
import { loadS3Sdk } from '../aws-sdk.ts';
import { ValidationError } from '../errors.ts';
import { MAX_RATES_FILE_BYTES, parseRatesFile, type RateSource } from '../fx/index.ts';
import { isNotFound } from '../jobs/index.ts';
import { RatesFetchError } from './errors.ts';
import { type KeptRatesStore, keptKey } from './kept.ts';

/** The ECB's euro reference rates since 1999, one ZIP of `eurofxref-hist.csv`, updated each TARGET day. */
export const ECB_HIST_URL = 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip';

/** HMRC's monthly rates, one XML file a month (`{month}`: `2024-05`), on the Trade Tariff service. */
export const HMRC_MONTHLY_URL =
  'https://www.trade-tariff.service.gov.uk/api/v2/exchange_rates/files/monthly_xml_{month}.xml';

/** Where the files are published (defaults: {@link ECB_HIST_URL}, {@link HMRC_MONTHLY_URL}). */
export interface RatesUrls {
  ecb: string;
  /** A URL with `{month}` for the month (`YYYY-MM`). */
  hmrc: string;
}

/** One file to fetch. */
export interface PublishedFile {
  source: RateSource;
  /** The published name, the last segment of its URL (the key keeps it). */
  name: string;
  url: string;
}

/**
 * The files a fetch at `now` asks for: the ECB's history, and HMRC's file of the current month
 * and of the next one (HMRC publishes a month's rates in the last days of the month before).
 */
export function publishedFiles(urls: RatesUrls, now: Date): PublishedFile[] {
  const month = (offset: number) => {
    const first = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1));
    return first.toISOString().slice(0, 7);
  };
  return [ecbHistoryFile(urls.ecb), ...hmrcMonthlyFiles(urls.hmrc, [month(0), month(1)])];
}

/** A published file at `url`, named by the last segment of its URL. */
function publishedFile(source: RateSource, url: string): PublishedFile {
  return {
    source,
    url,
    name: decodeURIComponent(new URL(url).pathname.split('/').pop() || `${source}-rates`),
  };
}

/** The ECB's history file at `url` (default {@link ECB_HIST_URL}). */
export function ecbHistoryFile(url: string = ECB_HIST_URL): PublishedFile {
  return publishedFile('ecb', url);
}

/** HMRC's file of each month (`YYYY-MM`), from `template` with `{month}` (default {@link HMRC_MONTHLY_URL}). */
export function hmrcMonthlyFiles(template: string, months: readonly string[]): PublishedFile[] {
  return months.map((month) => publishedFile('hmrc', template.replaceAll('{month}', month)));
}

/** What became of one file. */
export interface FetchOutcome {
  source: RateSource;
  name: string;
  url: string;
  /** `kept`: new content stored; `unchanged`: this content was kept already; `not-published`: 404. */
  outcome: 'kept' | 'unchanged' | 'not-published' | 'failed';
  key?: string;
  sha256?: string;
  reason?: string;
}

/** Deps of {@link fetchPublishedRates}. */
export interface RatesFetchDeps extends KeptRatesStore {
  urls: RatesUrls;
  now: () => Date;
  /** The HTTP client; default the global `fetch`. */
  fetch?: typeof fetch;
  /** Longest wait for one file, in milliseconds. Default 60 000. */
  timeoutMs?: number;
  /** Told what became of each file as it is done (before a failure is thrown). */
  onFile?: (outcome: FetchOutcome) => void;
}

/**
 * Fetches every published file ({@link publishedFiles}) and keeps each that parses and is not
 * kept yet. A file not published yet (404) is no failure; any other failure (network, HTTP
 * status, a file that does not parse) is thrown at the end as a {@link RatesFetchError}, after
 * the other files were kept.
 */
export async function fetchPublishedRates(deps: RatesFetchDeps): Promise<FetchOutcome[]> {
  const outcomes: FetchOutcome[] = [];
  for (const file of publishedFiles(deps.urls, deps.now())) {
    const outcome = await fetchOne(deps, file);
    deps.onFile?.(outcome);
    outcomes.push(outcome);
  }
  const failures = outcomes.filter((outcome) => outcome.outcome === 'failed');
  if (failures.length > 0) throw new RatesFetchError(failures.map((f) => `${f.name}: ${f.reason}`));
  return outcomes;
}

/** A published file downloaded and parsed: its bytes, or why there are none. */
export type Downloaded =
  | {
      outcome: 'downloaded';
      bytes: Uint8Array;
      sha256: string;
      /** The first and the last day the file has rates for (`YYYY-MM-DD`). */
      first: string;
      last: string;
    }
  | { outcome: 'not-published' }
  | { outcome: 'failed'; reason: string };

/**
 * Downloads one published file and parses it with `lib/fx`: a 404 is `not-published`; a network
 * error, another HTTP status, a body over the size limit or a file in no published layout is
 * `failed`, with the reason.
 */
export async function downloadPublished(
  file: PublishedFile,
  options: Pick<RatesFetchDeps, 'fetch' | 'timeoutMs'> = {},
): Promise<Downloaded> {
  const failed = (reason: string): Downloaded => ({ outcome: 'failed', reason });
  let bytes: Uint8Array;
  try {
    const response = await (options.fetch ?? fetch)(file.url, {
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return { outcome: 'not-published' };
    }
    if (!response.ok) return failed(`${file.url} answered HTTP ${response.status}`);
    const body = await bodyAtMost(response, MAX_RATES_FILE_BYTES);
    if (body === null)
      return failed(
        `${file.url} sent more than ${MAX_RATES_FILE_BYTES / (1024 * 1024)} MiB, the most a rates file may hold`,
      );
    bytes = body;
  } catch (error) {
    return failed(`${file.url} could not be fetched (${(error as Error).message})`);
  }
  try {
    const { info, parsed } = parseRatesFile({ name: file.name, bytes, source: file.source });
    const firsts = parsed.periods.map((period) => period.first).sort();
    const lasts = parsed.periods.map((period) => period.last).sort();
    return {
      outcome: 'downloaded',
      bytes,
      sha256: info.sha256,
      first: firsts[0] as string,
      last: lasts.at(-1) as string,
    };
  } catch (error) {
    const reason = error instanceof ValidationError ? error.reason : (error as Error).message;
    return failed(reason.replace(`rates file ${file.name}: `, ''));
  }
}

async function fetchOne(deps: RatesFetchDeps, file: PublishedFile): Promise<FetchOutcome> {
  const downloaded = await downloadPublished(file, deps);
  // One that does not parse is not kept: the export jobs read the kept files, it would fail them.
  if (downloaded.outcome !== 'downloaded') return { ...file, ...downloaded };
  const { bytes, sha256 } = downloaded;
  const key = keptKey(file.source, sha256, file.name);
  if (await exists(deps, key)) return { ...file, outcome: 'unchanged', key, sha256 };
  const { PutObjectCommand } = await loadS3Sdk();
  await deps.s3.send(
    new PutObjectCommand({
      Bucket: deps.bucket,
      Key: key,
      Body: bytes,
      ContentType: file.name.endsWith('.zip') ? 'application/zip' : 'application/octet-stream',
      Metadata: { 'source-url': file.url },
    }),
  );
  return { ...file, outcome: 'kept', key, sha256 };
}

/** The body of `response`, or `null` once it passes `maxBytes` (read no further, the rest cancelled). */
async function bodyAtMost(response: Response, maxBytes: number): Promise<Uint8Array | null> {
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of response.body ?? []) {
    total += chunk.length;
    if (total > maxBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, total);
}

async function exists(store: KeptRatesStore, key: string): Promise<boolean> {
  const { HeadObjectCommand } = await loadS3Sdk();
  try {
    await store.s3.send(new HeadObjectCommand({ Bucket: store.bucket, Key: key }));
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}
