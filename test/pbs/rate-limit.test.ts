import { describe, expect, it } from 'vitest';
import { createPbsClient, type PbsClient } from '../../lib/pbs/client.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import type { RequestLogEntry, RunningSimulator } from '../../lib/simulator/types.ts';
import { closeSimulatorsAfterEach, drain, startRealTimeSimulator } from './harness.ts';

closeSimulatorsAfterEach();

// These tests run on the real clock: the rate is what the simulator sees arrive. Nothing asserts
// elapsed time; requests are counted per sliding second from the simulator's log.

const SMALL_PAGES: ServiceShapeOverrides = {
  pagination: {
    style: 'offset',
    offsetParam: 'offset',
    limitParam: 'limit',
    limit: 40,
    totalItemsPath: 'total',
  },
};

/** The most requests that arrived within any [t, t + 1000) span. */
function busiestSecond(log: readonly RequestLogEntry[]): number {
  const times = log.map((entry) => entry.at);
  return Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
}

function clientOf(sim: RunningSimulator, requestsPerSecond: number, burst: number): PbsClient {
  const p = sim.profiles.find((profile) => profile.name === 'acme');
  if (!p) throw new Error('no acme profile');
  return createPbsClient({
    baseUrl: sim.url,
    credentials: { apiKey: p.apiKey, apiSecret: p.apiSecret },
    shape: SMALL_PAGES,
    requestsPerSecond,
    burst,
  });
}

describe('PbsClient rate limit', () => {
  it('returns with at most rate + burst requests in any second across concurrent listings', async () => {
    const sim = await startRealTimeSimulator({ shape: SMALL_PAGES, rateLimitPerSecond: 12 });
    const client = clientOf(sim, 10, 2);

    await Promise.all([drain(client.transactions()), drain(client.timeline()), drain(client.accounts())]);

    expect(sim.requestLog.length).toBeGreaterThan(20);
    expect(busiestSecond(sim.requestLog)).toBeLessThanOrEqual(12);
    expect(sim.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
  });

  it('returns without any 429 when the client rate equals the simulator rate', async () => {
    const sim = await startRealTimeSimulator({ shape: SMALL_PAGES, rateLimitPerSecond: 20 });
    const client = clientOf(sim, 20, 1);

    await Promise.all([drain(client.transactions()), drain(client.timeline()), drain(client.ledgers())]);

    expect(sim.requestLog.length).toBeGreaterThan(20);
    expect(sim.requestLog.filter((entry) => entry.status === 429)).toEqual([]);
    expect(client.stats.rateLimited).toBe(0);
  });

  it('returns every item after 429s when the client is faster than the simulator', async () => {
    const sim = await startRealTimeSimulator({ shape: SMALL_PAGES, rateLimitPerSecond: 2 });
    const client = clientOf(sim, 50, 10);

    const items = await drain(client.accounts());

    expect(items.length).toBeGreaterThan(0);
  });
});
