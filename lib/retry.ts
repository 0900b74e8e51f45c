/**
 * The one retry helper of the jobs layer's conditional-write loops (job records, slot leases):
 * run an operation up to `attempts` times while its error is `retryable`, pausing `delayMs(i)`
 * before retry `i`. Hand-written rather than `p-retry` because callers inject the pause
 * (`sleep`) and the randomness, so tests never wait on the wall clock.
 */

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /** Whether an attempt's error is worth another attempt; any other error is thrown at once. */
  retryable: (error: unknown) => boolean;
  /** Pause before retry `retryIndex` (0 before the second attempt), in ms. Default: none. */
  delayMs?: (retryIndex: number) => number;
  /** How to pause. Default: `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
  /** Told about each retry, before its pause. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Pauses with `setTimeout`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Full-jitter exponential backoff: `random() × min(maxMs, baseMs × factor^retryIndex)`.
 * `factor` 1 gives a jittered pause that does not grow.
 */
export function fullJitter(options: {
  baseMs: number;
  maxMs: number;
  factor?: number;
  random?: () => number;
}): (retryIndex: number) => number {
  const { baseMs, maxMs, factor = 2, random = Math.random } = options;
  return (retryIndex) => random() * Math.min(maxMs, baseMs * factor ** retryIndex);
}

/**
 * Runs `operation` until it resolves, throws an error that is not `retryable`, or has run
 * `attempts` times; then throws its last error (callers wrap it into their own typed error).
 */
export async function retry<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions,
): Promise<T> {
  const pause = options.sleep ?? sleep;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (attempt >= options.attempts || !options.retryable(error)) throw error;
      const delay = options.delayMs?.(attempt - 1) ?? 0;
      options.onRetry?.(error, attempt, delay);
      if (delay > 0) await pause(delay);
    }
  }
}
