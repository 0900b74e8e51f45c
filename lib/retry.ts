/**
 * The project's one retry helper: the service client's requests (`lib/pbs/retry.ts` sets its
 * policy: which errors, Retry-After, recovery), a shard's refetch when its listing is
 * inconsistent (`lib/export/fetch.ts`), and the jobs layer's conditional-write loops (job
 * records, slot leases). It runs an operation up to `attempts` times while its error is
 * `retryable`, pausing `delayMs(i, error)` before retry `i`. Hand-written rather than `p-retry`
 * because callers inject the pause (`sleep`) and the randomness, so tests never wait on the wall
 * clock, and because the client's policy needs the error to pick the pause (Retry-After) and an
 * asynchronous decision (refreshing rotated credentials) to retry an error that is not transient.
 * (The plan task's wait for a busy profile is the state machine's own Retry, declared in
 * `infra/state-machines.ts`, not code.)
 */

/** Options of {@link retry}. */
export interface RetryOptions {
  /** Attempts in all, the first included (at least 1). */
  attempts: number;
  /**
   * Whether an attempt's error is worth another attempt; any other error is thrown at once. Not
   * asked after the last attempt. May resolve later (e.g. after refreshing credentials).
   */
  retryable: (error: unknown) => boolean | Promise<boolean>;
  /** Pause before retry `retryIndex` (0 before the second attempt) after `error`, in ms. Default: none. */
  delayMs?: (retryIndex: number, error: unknown) => number;
  /** How to pause. Default: `setTimeout`. */
  sleep?: (ms: number) => Promise<void>;
  /** Told about each retry, before its pause. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/** Pauses with `setTimeout`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Full-jitter exponential backoff: `floor(random() × min(maxMs, baseMs × factor^retryIndex))` ms.
 * `factor` 1 gives a jittered pause that does not grow.
 */
export function fullJitter(options: {
  baseMs: number;
  maxMs: number;
  factor?: number;
  random?: () => number;
}): (retryIndex: number) => number {
  const { baseMs, maxMs, factor = 2, random = Math.random } = options;
  return (retryIndex) => Math.floor(random() * Math.min(maxMs, baseMs * factor ** retryIndex));
}

/**
 * Runs `operation` until it resolves, throws an error that is not `retryable`, or has run
 * `attempts` times; then throws its last error as it is (callers wrap it into their own typed
 * error). A pause of 0 ms is skipped.
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
      if (attempt >= options.attempts || !(await options.retryable(error))) throw error;
      const delay = options.delayMs?.(attempt - 1, error) ?? 0;
      options.onRetry?.(error, attempt, delay);
      if (delay > 0) await pause(delay);
    }
  }
}
