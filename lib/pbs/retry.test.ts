import { describe, expect, it } from 'vitest';
import { fakeClock, recordingLogger } from '../../test/pbs/support.ts';
import { PbsHttpError, PbsNetworkError, type PbsRequestError } from './errors.ts';
import { backoffDelay, parseRetryAfter, type RetryContext, withRetry } from './retry.ts';

const options = { maxAttempts: 4, baseDelayMs: 100, maxDelayMs: 1000, maxRetryAfterMs: 5000 };

function http(status: number, retryAfterMs: number | null = null): PbsHttpError {
  return new PbsHttpError({
    status,
    path: '/v2/accounts',
    serviceCode: 'x',
    serviceMessage: 'y',
    bodyStart: null,
    retryAfterMs,
    serverDateMs: null,
  });
}

function context(overrides: Partial<RetryContext> = {}): RetryContext & { sleeps: number[] } {
  const clock = fakeClock();
  return {
    options,
    sleep: clock.sleep,
    random: () => 0.5,
    logger: recordingLogger(),
    sleeps: clock.sleeps,
    ...overrides,
  };
}

/** An operation failing with `errors` in turn, then returning 'ok'. */
function failing(errors: PbsRequestError[]): { run: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    run: async () => {
      const error = errors[calls++];
      if (error) throw error;
      return 'ok';
    },
    calls: () => calls,
  };
}

describe('backoffDelay', () => {
  it('returns random × base × 2^retryIndex below the cap', () => {
    expect([0, 1, 2].map((i) => backoffDelay(i, options, () => 0.5))).toEqual([50, 100, 200]);
  });

  it('returns random × maxDelay once the exponential passes the cap', () => {
    expect(backoffDelay(10, options, () => 0.5)).toBe(500);
  });

  it('returns 0 when random returns 0 (full jitter reaches zero)', () => {
    expect(backoffDelay(3, options, () => 0)).toBe(0);
  });
});

describe('parseRetryAfter', () => {
  it('returns milliseconds for delay-seconds', () => {
    expect(parseRetryAfter('3', 0)).toBe(3000);
  });

  it('returns the time until an HTTP date', () => {
    const now = Date.parse('2026-11-22T04:00:00Z');
    expect(parseRetryAfter('Sun, 22 Nov 2026 04:00:07 GMT', now)).toBe(7000);
  });

  it('returns 0 for an HTTP date in the past', () => {
    expect(parseRetryAfter('Sun, 22 Nov 2026 03:00:00 GMT', Date.parse('2026-11-22T04:00:00Z'))).toBe(0);
  });

  it('returns null for an absent or unreadable value', () => {
    expect([parseRetryAfter(null, 0), parseRetryAfter('soon', 0), parseRetryAfter('-1', 0)]).toEqual([
      null,
      null,
      null,
    ]);
  });
});

describe('withRetry', () => {
  it('returns the result after retryable failures', async () => {
    const op = failing([new PbsNetworkError('/v2/a', 'ECONNRESET'), http(503)]);

    await expect(withRetry(op.run, context())).resolves.toBe('ok');
    expect(op.calls()).toBe(3);
  });

  it('returns full-jitter delays from the injected random between attempts', async () => {
    const ctx = context();
    const op = failing([http(500), http(500), http(500)]);

    await withRetry(op.run, ctx);

    expect(ctx.sleeps).toEqual([50, 100, 200]);
  });

  it('throws a non-retryable 4xx at once with attempts 1', async () => {
    const op = failing([http(404)]);

    await expect(withRetry(op.run, context())).rejects.toMatchObject({ status: 404, attempts: 1 });
    expect(op.calls()).toBe(1);
  });

  it('throws the last error with the attempt count after maxAttempts', async () => {
    const op = failing([http(500), http(502), http(503), http(500), http(500)]);

    const error = await withRetry(op.run, context()).catch((e: unknown) => e);

    expect(error).toMatchObject({ status: 500, attempts: 4 });
    expect((error as Error).message).toContain('after 4 attempts');
    expect(op.calls()).toBe(4);
  });

  it('waits at least Retry-After when it exceeds the backoff', async () => {
    const ctx = context();

    await withRetry(failing([http(429, 3000)]).run, ctx);

    expect(ctx.sleeps).toEqual([3000]);
  });

  it('waits the backoff when it exceeds Retry-After', async () => {
    const ctx = context({ random: () => 0.9 });

    await withRetry(failing([http(429, 10)]).run, ctx);

    expect(ctx.sleeps).toEqual([90]);
  });

  it('throws at once when Retry-After exceeds maxRetryAfterMs', async () => {
    const op = failing([http(429, 60_000)]);

    await expect(withRetry(op.run, context())).rejects.toMatchObject({ status: 429, attempts: 1 });
  });

  it('returns after recover accepts a non-retryable error once', async () => {
    let recovered = 0;
    const op = failing([http(401)]);

    const result = await withRetry(op.run, context({ recover: () => ++recovered === 1 }));

    expect(result).toBe('ok');
  });

  it('rethrows errors that are not request errors untouched', async () => {
    const boom = new TypeError('bug');

    await expect(withRetry(() => Promise.reject(boom), context())).rejects.toBe(boom);
  });
});
