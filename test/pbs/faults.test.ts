import { describe, expect, it } from 'vitest';
import { PbsHttpError, PbsTimeoutError } from '../../lib/pbs/errors.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import type { FaultOptions } from '../../lib/simulator/types.ts';
import { closeSimulatorsAfterEach, drain, idsOf, startHarness } from './harness.ts';

closeSimulatorsAfterEach();

const SMALL_PAGES: ServiceShapeOverrides = {
  pagination: {
    style: 'page',
    pageParam: 'page',
    pageSize: 25,
    pageSizeParam: 'pageSize',
    firstPage: 1,
    totalItemsPath: 'totalItems',
    totalPagesPath: 'totalPages',
  },
};

/** Transaction ids read without faults: the reference every faulty read must equal. */
async function referenceIds(shape: ServiceShapeOverrides): Promise<unknown[]> {
  const h = await startHarness({ shape });
  return idsOf(await drain(h.client().transactions()));
}

describe('PbsClient under injected faults', () => {
  it.each<[string, FaultOptions]>([
    ['429 bursts', { rateLimited: { rate: 0.3, retryAfterSeconds: 2 } }],
    ['5xx answers', { serverError: { rate: 0.3 } }],
    ['connection resets', { connectionReset: { rate: 0.3 } }],
    ['truncated JSON bodies', { truncatedBody: { rate: 0.3 } }],
    ['malformed bodies', { malformedBody: { rate: 0.3 } }],
    ['stalled bodies', { stalledBody: { rate: 0.2, stallMs: 30_000 } }],
  ])('returns every transaction once, in order, despite %s', async (_name, faults) => {
    const expected = await referenceIds(SMALL_PAGES);
    const h = await startHarness({ shape: SMALL_PAGES, faults, rateLimitPerSecond: 100_000 });
    const client = h.client({ timeoutMs: 200, retry: { maxAttempts: 10 }, requestsPerSecond: 1000 });

    const ids = idsOf(await drain(client.transactions()));

    expect(ids).toEqual(expected);
    expect(h.sim.requestLog.some((entry) => entry.fault !== undefined)).toBe(true);
    expect(client.stats.retries).toBe(h.sim.requestLog.filter((entry) => entry.fault !== undefined).length);
  });

  it('returns every transaction once with all faults mixed and concurrent listings', async () => {
    const expected = await referenceIds(SMALL_PAGES);
    const h = await startHarness({
      shape: SMALL_PAGES,
      rateLimitPerSecond: 100_000,
      faults: {
        rateLimited: { rate: 0.08, retryAfterSeconds: 1 },
        serverError: { rate: 0.08 },
        connectionReset: { rate: 0.05 },
        truncatedBody: { rate: 0.05 },
        malformedBody: { rate: 0.05 },
        stalledBody: { rate: 0.03, stallMs: 30_000 },
      },
    });
    const client = h.client({ timeoutMs: 200, retry: { maxAttempts: 12 }, requestsPerSecond: 1000 });

    const [a, b, timeline] = await Promise.all([
      drain(client.transactions()),
      drain(client.transactions()),
      drain(client.timeline()),
    ]);

    expect(idsOf(a)).toEqual(expected);
    expect(idsOf(b)).toEqual(expected);
    expect(idsOf(timeline)).toEqual(expected);
  });

  it('waits at least Retry-After seconds after a 429', async () => {
    const h = await startHarness({ faults: { rateLimited: { rate: 1, retryAfterSeconds: 3 } } });
    const client = h.client({ retry: { maxAttempts: 2 } });

    await expect(client.defiProtocols()).rejects.toBeInstanceOf(PbsHttpError);

    expect(h.clock.sleeps.filter((ms) => ms >= 3000)).toHaveLength(1);
    expect(client.stats.rateLimited).toBe(2);
  });

  it('throws PbsHttpError with status and service code after exactly maxAttempts requests on persistent 5xx', async () => {
    const h = await startHarness({ faults: { serverError: { rate: 1 } } });
    const client = h.client({ retry: { maxAttempts: 4 } });

    const error = await client.dateBounds().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsHttpError);
    expect(error).toMatchObject({ attempts: 4, path: '/v2/transactions/date-bounds' });
    expect([500, 502, 503]).toContain((error as PbsHttpError).status);
    expect((error as PbsHttpError).serviceCode).toMatch(/^(internal_error|bad_gateway|unavailable)$/);
    expect(h.sim.requestLog).toHaveLength(4);
  });

  it('throws PbsNetworkError after exactly maxAttempts requests on persistent connection resets', async () => {
    const h = await startHarness({ faults: { connectionReset: { rate: 1 } } });
    const client = h.client({ retry: { maxAttempts: 3 } });

    await expect(drain(client.accounts())).rejects.toMatchObject({ name: 'PbsNetworkError', attempts: 3 });
    expect(h.sim.requestLog).toHaveLength(3);
  });

  it('throws PbsTimeoutError after exactly maxAttempts requests on persistently stalled bodies', async () => {
    const h = await startHarness({ faults: { stalledBody: { rate: 1, stallMs: 30_000 } } });
    const client = h.client({ retry: { maxAttempts: 2 }, timeoutMs: 100 });

    const error = await client.defiProtocols().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsTimeoutError);
    expect(error).toMatchObject({ attempts: 2 });
    expect(h.sim.requestLog).toHaveLength(2);
  });

  it('throws PbsResponseError after exactly maxAttempts requests on persistently malformed bodies', async () => {
    const h = await startHarness({ faults: { malformedBody: { rate: 1 } } });
    const client = h.client({ retry: { maxAttempts: 3 } });

    await expect(client.defiProtocols()).rejects.toMatchObject({ name: 'PbsResponseError', attempts: 3 });
    expect(h.sim.requestLog).toHaveLength(3);
  });
});
