import { fullJitter, retry } from '../retry.ts';
import type { PbsLogger, PbsRetryOptions } from './config.ts';
import { PbsHttpError, PbsRequestError } from './errors.ts';

/**
 * Full-jitter exponential backoff: `random() × min(maxDelayMs, baseDelayMs × 2^retryIndex)`,
 * where `retryIndex` is 0 before the first retry (the project's {@link fullJitter}).
 */
export function backoffDelay(
  retryIndex: number,
  options: Pick<PbsRetryOptions, 'baseDelayMs' | 'maxDelayMs'>,
  random: () => number,
): number {
  return fullJitter({ baseMs: options.baseDelayMs, maxMs: options.maxDelayMs, random })(retryIndex);
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

/** How {@link withRetry} retries: the client's settings and its injected clock, randomness and logger. */
export interface RetryContext {
  options: PbsRetryOptions;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  logger: PbsLogger;
  /** Called before each retry after a transient error (for statistics), with its pause. */
  onRetry?: (error: PbsRequestError, delayMs: number) => void;
  /**
   * Lets the caller fix a non-retryable error (e.g. clock skew, rotated credentials): return (or
   * resolve to) true to try again at once. The extra attempt still counts against `maxAttempts`.
   */
  recover?: (error: PbsRequestError) => boolean | Promise<boolean>;
}

/** The pause the service asks for (429, 503 `Retry-After`), if any. */
function retryAfterOf(error: PbsRequestError): number | null {
  return error instanceof PbsHttpError ? error.retryAfterMs : null;
}

/**
 * Runs `operation` on the project's {@link retry} until it succeeds, a non-retryable error occurs
 * or `maxAttempts` attempts are spent; then throws the last typed error with its `attempts` count.
 * Retries request errors that are transient (`retryable`: network, timeout, unreadable body, 429,
 * 5xx) after full-jitter backoff, waiting at least `Retry-After` when the service sends one (and
 * giving up at once when that is beyond `maxRetryAfterMs`); retries others at once when `recover`
 * fixed their cause. Errors that are not request errors are thrown untouched.
 */
export async function withRetry<T>(
  operation: (attempt: number) => Promise<T>,
  context: RetryContext,
): Promise<T> {
  const { options, logger } = context;
  const jitter = fullJitter({
    baseMs: options.baseDelayMs,
    maxMs: options.maxDelayMs,
    random: context.random,
  });
  let attempts = 0;
  try {
    return await retry(
      (attempt) => {
        attempts = attempt;
        return operation(attempt);
      },
      {
        attempts: options.maxAttempts,
        retryable: async (error) => {
          if (!(error instanceof PbsRequestError)) return false;
          if (!error.retryable) return (await context.recover?.(error)) === true;
          return (retryAfterOf(error) ?? 0) <= options.maxRetryAfterMs;
        },
        // A recovered error is retried at once: its cause is fixed, not transient.
        delayMs: (retryIndex, error) =>
          error instanceof PbsRequestError && error.retryable
            ? Math.max(jitter(retryIndex), retryAfterOf(error) ?? 0)
            : 0,
        sleep: context.sleep,
        onRetry: (error, attempt, delayMs) => {
          if (!(error instanceof PbsRequestError) || !error.retryable) return;
          logger.debug('PBS request failed; retrying', {
            path: error.path,
            code: error.code,
            attempt,
            delayMs,
          });
          context.onRetry?.(error, delayMs);
        },
      },
    );
  } catch (error) {
    throw error instanceof PbsRequestError ? error.withAttempts(attempts) : error;
  }
}
