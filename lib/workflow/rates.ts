/**
 * `gains.rates` on AWS: the rates files a job converts with are the ones the daily rates fetch
 * keeps in the bucket (`lib/fx-store`). The finish task reads them and fills in their names and
 * SHA-256s, so the snapshot and manifest record the exact files (a CLI `render --rates` with the
 * same files rebuilds the same figures).
 */
import type { ExportRequest } from '../export/index.ts';
import type { RateTable } from '../fx/index.ts';
import { hasKeptRates, type KeptRatesStore, noKeptRates, readKeptRates } from '../fx-store/index.ts';

/** A request with its rates: `gains.rates.files` filled in from the kept files read. */
export interface RatedRequest {
  request: ExportRequest;
  rates?: RateTable;
}

/**
 * Reads the kept files of the request's `gains.rates` source: the newest of each published name,
 * or exactly the files `gains.rates.files` lists (by SHA-256). Without `gains.rates`, the request
 * as it is. Throws a `ValidationError` of `gains.rates` when the bucket keeps none, or not a
 * listed one.
 */
export async function withKeptRates(store: KeptRatesStore, request: ExportRequest): Promise<RatedRequest> {
  const gains = request.gains;
  const asked = gains?.rates;
  if (gains === undefined || asked === undefined) return { request };
  const kept = await readKeptRates(store, asked.source, asked.files);
  return {
    request: { ...request, gains: { ...gains, rates: { source: asked.source, files: kept.files } } },
    rates: kept.table,
  };
}

/** Refuses a request for `gains.rates` of a source the bucket keeps no file of (before any fetch). */
export async function requireKeptRates(
  store: KeptRatesStore,
  request: Pick<ExportRequest, 'gains'>,
): Promise<void> {
  const source = request.gains?.rates?.source;
  if (source !== undefined && !(await hasKeptRates(store, source))) throw noKeptRates(source);
}
