/**
 * The rate-limit criterion of the load tests. The service limits each API key with a token bucket
 * (spec and GAPS.md: 20 requests/s per key, 429 beyond; the simulator: capacity = rate, refilled
 * continuously). A request VIOLATES the limit when, replaying that same bucket over the
 * simulator's request log (arrival time of every request of the key that reached the limiter, in
 * arrival order), the bucket holds less than one token when it arrives. With no fault injected,
 * the simulator's own 429s are exactly these requests; the replay makes the criterion independent
 * of how the 429 was produced, and it also counts requests the service let through only because
 * of latency between arrival and decision (none here: both happen in the same tick).
 */
import type { RequestLogEntry } from '../../../lib/simulator/types.ts';

/** Statuses the simulator answers before its rate limiter (authentication, routing): no token taken. */
const BEFORE_LIMITER = new Set([401, 403, 404, 405]);

/** Per API key: requests, violations, and the most requests in any 1-second window. */
export interface KeyRate {
  requests: number;
  violations: number;
  maxInAnySecond: number;
}

/** The replay's outcome over every key. */
export interface RateReport {
  violations: number;
  /** By API key; callers replace the keys by profile names before printing anything. */
  perKey: Record<string, KeyRate>;
}

/** Replays the service's per-key token bucket (`ratePerSecond`, capacity = rate) over `log`. */
export function replayRateLimit(log: readonly RequestLogEntry[], ratePerSecond: number): RateReport {
  const byKey = new Map<string, number[]>();
  for (const entry of log) {
    if (entry.apiKey === undefined || BEFORE_LIMITER.has(entry.status)) continue;
    const times = byKey.get(entry.apiKey) ?? [];
    times.push(entry.at);
    byKey.set(entry.apiKey, times);
  }
  const perKey: Record<string, KeyRate> = {};
  let violations = 0;
  for (const [key, times] of byKey) {
    let tokens = ratePerSecond;
    let last = times[0] ?? 0;
    let keyViolations = 0;
    let maxInAnySecond = 0;
    let windowStart = 0;
    for (const [index, at] of times.entries()) {
      tokens = Math.min(ratePerSecond, tokens + (Math.max(0, at - last) * ratePerSecond) / 1000);
      last = Math.max(last, at);
      if (tokens >= 1) tokens -= 1;
      else keyViolations += 1;
      while ((times[windowStart] ?? at) <= at - 1000) windowStart += 1;
      maxInAnySecond = Math.max(maxInAnySecond, index - windowStart + 1);
    }
    perKey[key] = { requests: times.length, violations: keyViolations, maxInAnySecond };
    violations += keyViolations;
  }
  return { violations, perKey };
}
