import { afterEach, describe, expect, it } from 'vitest';
import { signedJson } from '../../test/support/simulator.ts';
import { FaultPlan } from './faults.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile, SimulatorOptions } from './types.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  sim = await startSimulator({ rateLimitPerSecond: 0, ...options });
  return sim;
}

/** The ids of page `page` (1-based) of acme's transactions, `size` per page. */
async function pageIds(s: RunningSimulator, page: number, size: number): Promise<string[]> {
  const body = (await signedJson(s.url, acme, '/v2/transactions', {
    query: [
      ['page', String(page)],
      ['pageSize', String(size)],
    ],
  })) as { items: { id: string }[] };
  return body.items.map((item) => item.id);
}

describe('simulator boundarySkip fault', () => {
  it('serves every page past the first late by `items`, the same rows lost on every listing', async () => {
    const clean = await start();
    const reference = [...(await pageIds(clean, 1, 30)), ...(await pageIds(clean, 2, 30))];
    await clean.close();
    const s = await start({ faults: { boundarySkip: { items: 2 } } });

    const listing = async (size: number) => [
      ...(await pageIds(s, 1, size)),
      ...(await pageIds(s, 2, size)),
      ...(await pageIds(s, 3, size)),
    ];
    const first = await listing(10);
    const again = await listing(10);
    const otherSize = await listing(9);

    expect(first).toEqual([...reference.slice(0, 10), ...reference.slice(12, 32)]);
    expect(again).toEqual(first);
    expect(otherSize).toEqual([...reference.slice(0, 9), ...reference.slice(11, 29)]);
    expect(s.requestLog.map((entry) => entry.fault ?? null)).toEqual(
      Array.from({ length: 3 }, () => [null, 'boundarySkip', 'boundarySkip']).flat(),
    );
  });
});

describe('FaultPlan drawPerRequest', () => {
  it('draws by the request and its occurrence, whatever other requests came between', () => {
    const options = { pageShift: { rate: 0.5, maxItems: 3 }, drawPerRequest: true };
    const requests = Array.from({ length: 30 }, (_, i) => `/v2/transactions?page=${i + 2}`);
    const inOrder = new FaultPlan(4, options);
    const reversed = new FaultPlan(4, options);

    const forward = requests.map((request) => inOrder.decide(request));
    const backward = [...requests].reverse().map((request) => reversed.decide(request));

    expect(backward.reverse()).toEqual(forward);
    expect(new Set(forward.map((decision) => decision.kind)).size).toBe(2);
    // The same request asked again draws afresh (a retried page is not doomed to the same fault).
    const twice = new FaultPlan(4, options);
    const draws = Array.from({ length: 20 }, () => twice.decide('/v2/transactions?page=2').shift);
    expect(new Set(draws).size).toBeGreaterThan(1);
  });
});
