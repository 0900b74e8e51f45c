/**
 * `GET /rates`: which rates sources a request's `gains.rates.source` may name, by what the
 * bucket keeps under `rates/` (the daily rates fetch on AWS; the DEMO made-up files on
 * `npm run serve`). The portal's request form offers the sources kept. Rates are not a
 * profile's: any caller the API lets in may list them.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { KeptRatesList } from '../api-schemas/index.ts';
import { RATE_SOURCES, SOURCE_NAMES } from '../fx/index.ts';
import { keptSummary } from '../fx-store/index.ts';
import { ERROR } from './answers.ts';

const ratesRoute = createRoute({
  method: 'get',
  path: '/rates',
  summary: 'The rates files kept for gains.rates, by source',
  responses: {
    200: {
      description: 'the sources and what is kept of each',
      content: { 'application/json': { schema: KeptRatesList } },
    },
    500: ERROR,
  },
});

/** What the route reads: the reports bucket. */
export interface RatesRouteDeps {
  s3: S3Client;
  bucket: string;
}

/** Adds `GET /rates` to `app`. */
export function addRatesRoute(app: OpenAPIHono, deps: RatesRouteDeps, headers: Record<string, string>): void {
  app.openapi(ratesRoute, async (c) => {
    const kept = await keptSummary({ s3: deps.s3, bucket: deps.bucket }, RATE_SOURCES);
    const sources = kept.map((summary) => ({
      source: summary.source,
      description: SOURCE_NAMES[summary.source],
      files: summary.files,
      demo: summary.demo,
      ...(summary.newest !== undefined ? { newest: summary.newest.toISOString() } : {}),
    }));
    return c.json({ sources }, 200, headers);
  });
}
