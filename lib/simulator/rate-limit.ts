/**
 * A token bucket per API key on the injected clock: capacity = rate, refilled continuously at
 * `ratePerSecond`. A rate of 0 or less (or not finite) disables limiting.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly ratePerSecond: number) {}

  /** Takes one token for `key` at `nowMs`; returns 0 if allowed, else the seconds to wait (≥ 1). */
  take(key: string, nowMs: number): number {
    const rate = this.ratePerSecond;
    if (!(rate > 0) || !Number.isFinite(rate)) return 0;
    const bucket = this.buckets.get(key) ?? { tokens: rate, at: nowMs };
    const elapsed = Math.max(0, nowMs - bucket.at);
    bucket.tokens = Math.min(rate, bucket.tokens + (elapsed * rate) / 1000);
    bucket.at = nowMs;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - bucket.tokens) / rate));
  }
}
