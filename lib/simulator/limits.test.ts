import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedGet } from '../../test/support/simulator.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { FaultOptions, RunningSimulator, SimulatedProfile } from './types.ts';

const demo = DEFAULT_PROFILES[0] as SimulatedProfile;
const acme = DEFAULT_PROFILES[1] as SimulatedProfile;

describe('simulator rate limit', () => {
  let clock = 1_790_000_000_000;
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ now: () => clock });
  });
  afterAll(() => sim.close());

  const burst = async (profile: SimulatedProfile, count: number): Promise<Response[]> => {
    const responses: Response[] = [];
    for (let k = 0; k < count; k += 1) {
      const response = await signedGet(sim.url, profile, '/v2/accounts', { timestamp: clock });
      await response.arrayBuffer();
      responses.push(response);
    }
    return responses;
  };

  it('returns 429 with Retry-After and the error shape on the 21st request within one second', async () => {
    clock += 60_000;
    const responses = await burst(demo, 21);
    const last = responses[20] as Response;
    expect(responses.slice(0, 20).every((r) => r.status === 200)).toBe(true);
    expect([last.status, last.headers.get('retry-after')]).toEqual([429, '1']);
  });

  it('returns 200 again once the injected clock has moved on by a second', async () => {
    clock += 60_000;
    await burst(demo, 21);
    clock += 1_000;
    const [next] = await burst(demo, 1);
    expect(next?.status).toBe(200);
  });

  it('keeps a separate bucket per API key', async () => {
    clock += 60_000;
    await burst(demo, 21);
    const [other] = await burst(acme, 1);
    expect(other?.status).toBe(200);
  });
});

describe('simulator faults', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ rateLimitPerSecond: 0 });
  });
  afterAll(() => sim.close());

  const faulty = async (faults: FaultOptions, path = '/v2/transactions'): Promise<Response> => {
    sim.setFaults(faults);
    return signedGet(sim.url, demo, path, { query: [['pageSize', '50']] });
  };

  it('returns 429 with the configured Retry-After for a rate-limit fault', async () => {
    const response = await faulty({ rateLimited: { rate: 1, retryAfterSeconds: 7 } });
    expect([response.status, response.headers.get('retry-after')]).toEqual([429, '7']);
  });

  it('returns a 5xx with the JSON error shape for a server-error fault', async () => {
    const response = await faulty({ serverError: { rate: 1 } });
    const body = (await response.json()) as { error: { code: string } };
    expect([response.status >= 500, typeof body.error.code]).toEqual([true, 'string']);
  });

  it('resets the connection part-way through the body for a connection-reset fault', async () => {
    const response = await faulty({ connectionReset: { rate: 1 } });
    await expect(response.text()).rejects.toThrow();
  });

  it('returns a 200 whose JSON is cut short for a truncated-body fault', async () => {
    const response = await faulty({ truncatedBody: { rate: 1 } });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('returns a 200 whose body is not JSON for a malformed-body fault', async () => {
    const response = await faulty({ malformedBody: { rate: 1 } });
    const text = await response.text();
    expect([response.status, text.startsWith('<')]).toEqual([200, true]);
  });

  it('sends headers and part of the body then stalls, and close() still shuts down', async () => {
    const stalling = await startSimulator({
      rateLimitPerSecond: 0,
      faults: { stalledBody: { rate: 1, stallMs: 600_000 } },
    });
    const response = await signedGet(stalling.url, demo, '/v2/transactions', { query: [['pageSize', '50']] });
    const reader = response.body?.getReader();
    const first = await reader?.read();
    expect([response.status, (first?.value?.length ?? 0) > 0, stalling.requestLog[0]?.fault]).toEqual([
      200,
      true,
      'stalledBody',
    ]);
    await stalling.close();
    await expect(reader?.read()).rejects.toThrow();
  });

  it('records latency as the fault of a delayed request', async () => {
    sim.clearLog();
    const response = await faulty({ latencyMs: 5 });
    await response.arrayBuffer();
    expect([response.status, sim.requestLog[0]?.fault]).toEqual([200, 'latency']);
  });

  it('injects no fault outside pathPrefix', async () => {
    const response = await faulty(
      { serverError: { rate: 1 }, pathPrefix: '/v2/transactions' },
      '/v2/accounts',
    );
    expect(response.status).toBe(200);
  });

  it('stops injecting once setFaults replaces the faults with none', async () => {
    await (await faulty({ serverError: { rate: 1 } })).arrayBuffer();
    const response = await faulty({});
    expect(response.status).toBe(200);
  });

  it('returns the same fault schedule for the same seed', async () => {
    const statuses = async (): Promise<number[]> => {
      const s = await startSimulator({
        seed: 42,
        rateLimitPerSecond: 0,
        faults: { serverError: { rate: 0.5 } },
      });
      try {
        const out: number[] = [];
        for (let k = 0; k < 16; k += 1) {
          const response = await signedGet(s.url, demo, '/v2/accounts');
          await response.arrayBuffer();
          out.push(response.status);
        }
        return out;
      } finally {
        await s.close();
      }
    };
    const first = await statuses();
    expect(new Set(first).size).toBeGreaterThan(1);
    expect(await statuses()).toEqual(first);
  });
});

describe('simulator request log', () => {
  it('records method, path, query pairs, headers, API key, status and fault of each request', async () => {
    const now = 1_790_000_000_000;
    const sim = await startSimulator({
      now: () => now,
      faults: { serverError: { rate: 1 }, pathPrefix: '/v2/ledgers' },
    });
    try {
      await (
        await signedGet(sim.url, demo, '/v2/transactions', {
          timestamp: now,
          query: [
            ['t', 'ETH'],
            ['t', 'BTC'],
          ],
        })
      ).arrayBuffer();
      await (await signedGet(sim.url, demo, '/v2/ledgers', { timestamp: now })).arrayBuffer();
      const [search, ledgers] = sim.requestLog;
      expect(search).toMatchObject({
        at: now,
        method: 'GET',
        path: '/v2/transactions',
        apiKey: demo.apiKey,
        status: 200,
      });
      expect(search?.query.slice(0, 3)).toEqual([
        ['t', 'ETH'],
        ['t', 'BTC'],
        ['timestamp', String(now)],
      ]);
      expect(search?.headers['x-api-key']).toBe(demo.apiKey);
      expect([ledgers?.path, ledgers?.fault]).toEqual(['/v2/ledgers', 'serverError']);
      expect(ledgers?.status).toBeGreaterThanOrEqual(500);
    } finally {
      await sim.close();
    }
  });

  it('returns an empty log after clearLog', async () => {
    const sim = await startSimulator();
    try {
      await (await signedGet(sim.url, demo, '/v2/accounts')).arrayBuffer();
      sim.clearLog();
      expect(sim.requestLog).toHaveLength(0);
    } finally {
      await sim.close();
    }
  });
});
