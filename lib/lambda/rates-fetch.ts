/**
 * The rates fetch function's handler: run daily by the stack's schedule, it fetches the ECB's and
 * HMRC's published rates files and keeps the new ones in the bucket (`lib/fx-store`).
 */
import { type FetchOutcome, fetchPublishedRates, type RatesFetchDeps } from '../fx-store/index.ts';
import { type Lazy, memo } from './handlers.ts';
import { type LambdaHandler, type Observability, withObservability } from './observability.ts';

/** Deps of the rates fetch handler. */
export interface RatesFetchContext extends RatesFetchDeps {
  obs: Observability;
}

/** What one fetch did, per file. */
export interface RatesFetchOutput {
  files: FetchOutcome[];
}

/**
 * The handler (the schedule's event carries nothing it reads), on Middy: each file's outcome
 * logged, the number of files newly kept as the `RatesFilesKept` metric. A failed file fails the
 * invocation after the others were kept (`RatesFetchError`).
 */
export function createRatesFetchHandler(
  context: Lazy<RatesFetchContext>,
): LambdaHandler<unknown, RatesFetchOutput> {
  const built = memo(() => {
    const ctx = memo(context)();
    return withObservability<unknown, RatesFetchOutput>(
      ctx.obs,
      () => ({}),
      async () => {
        const files = await fetchPublishedRates({
          ...ctx,
          onFile: (file) => ctx.obs.logger.info('rates file', { ...file }),
        });
        ctx.obs.metrics.addMetric(
          'RatesFilesKept',
          'Count',
          files.filter((file) => file.outcome === 'kept').length,
        );
        return { files };
      },
    );
  });
  return async (event, lambdaContext) => built()(event, lambdaContext);
}
