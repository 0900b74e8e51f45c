/** A source of permission to send one request. */
export interface RateLimiter {
  /** Resolves when the caller may send one request; callers are served in arrival order. */
  acquire(): Promise<void>;
}

export interface TokenBucketOptions {
  /** Tokens added per second. */
  ratePerSecond: number;
  /** Capacity. */
  burst: number;
  /**
   * Tokens at the start, 0 … `burst`. Default `burst` (full). 0 makes even the first request wait
   * one interval, so clients created one after another (one per task) never exceed the rate together.
   */
  initialTokens?: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Token bucket driven by an injected clock: at most `burst + ratePerSecond × t` acquisitions in
 * any span of `t` seconds. Waiters queue so concurrent callers never overtake each other.
 */
export function createTokenBucket(options: TokenBucketOptions): RateLimiter {
  const { ratePerSecond, burst, now, sleep } = options;
  let tokens = Math.min(burst, Math.max(0, options.initialTokens ?? burst));
  let last = now();
  let queue: Promise<void> = Promise.resolve();

  const refill = (): void => {
    const current = now();
    if (current > last) {
      tokens = Math.min(burst, tokens + ((current - last) * ratePerSecond) / 1000);
      last = current;
    }
  };

  const take = async (): Promise<void> => {
    for (;;) {
      refill();
      if (tokens >= 1) {
        tokens -= 1;
        return;
      }
      await sleep(Math.max(1, Math.ceil(((1 - tokens) * 1000) / ratePerSecond)));
    }
  };

  return {
    acquire() {
      const turn = queue.then(take);
      queue = turn.catch(() => {});
      return turn;
    },
  };
}
