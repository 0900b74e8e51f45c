import type { PbsLogger, PbsRetryOptions } from './config.ts';
import { PbsHttpError, PbsRequestError } from './errors.ts';

/**
 * Full-jitter exponential backoff: `random() × min(maxDelayMs, baseDelayMs × 2^retryIndex)`,
 * where `retryIndex` is 0 before the first retry.
 */
export function backoffDelay(
  retryIndex: number,
  options: Pick<PbsRetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retryIndex);
  return Math.floor(random() * ceiling);
}

/**
 * Parses a `Retry-After` header, delay-seconds or HTTP date, into milliseconds from `nowMs`.
 * Returns null when absent or unreadable; a date in the past gives 0.
 */
export function parseRetryAfter(value: string | null | undefined, nowMs: number): number | null {
  if (value === null || value === undefined) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.max(0, at - nowMs);
}

export interface RetryContext {
  options: PbsRetryOptions;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  logger: PbsLogger;
  /** Called before each retry (for statistics). */
  onRetry?: (error: PbsRequestError, delayMs: number) => void;
  /**
   * Lets the caller fix a non-retryable error (e.g. clock skew, rotated credentials): return (or
   * resolve to) true to try again at once. The extra attempt still counts against `maxAttempts`.
   */
  recover?: (error: PbsRequestError) => boolean | Promise<boolean>;
}

/**
 * Runs `operation` until it succeeds, a non-retryable error occurs or `maxAttempts` attempts are
 * spent; then throws the last typed error with its `attempts` count. Waits at least `Retry-After`
 * when the service sends one.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  context: RetryContext,
): Promise<T> {
  const { options, sleep, random, logger } = context;
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof PbsRequestError)) throw error;
      const last = attempt >= options.maxAttempts;
      if (!error.retryable) {
        if (!last && (await context.recover?.(error))) continue;
        throw error.withAttempts(attempt);
      }
      if (last) throw error.withAttempts(attempt);
      let delay = backoffDelay(attempt - 1, options, random);
      const retryAfterMs = error instanceof PbsHttpError ? error.retryAfterMs : null;
      if (retryAfterMs !== null) {
        if (retryAfterMs > options.maxRetryAfterMs) throw error.withAttempts(attempt);
        delay = Math.max(delay, retryAfterMs);
      }
      logger.debug('PBS request failed; retrying', {
        path: error.path,
        code: error.code,
        attempt,
        delayMs: delay,
      });
      context.onRetry?.(error, delay);
      await sleep(delay);
    }
  }
}
