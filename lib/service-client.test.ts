import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PbsHttpError } from './pbs/index.ts';
import { createServiceClient } from './service-client.ts';
import { parseConnectionSettings } from './settings.ts';
import { startSimulator } from './simulator/index.ts';
import type { RunningSimulator } from './simulator/types.ts';

let simulator: RunningSimulator;
beforeAll(async () => {
  simulator = await startSimulator({});
});
afterAll(async () => {
  await simulator.close();
});

/** Sends `total` date-bounds requests over `workers` concurrent callers; counts the outcomes. */
async function requestMany(client: ReturnType<typeof createServiceClient>, total: number, workers: number) {
  let next = 0;
  const refused: unknown[] = [];
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < total) {
        next += 1;
        await client.dateBounds().catch((error: unknown) => refused.push(error));
      }
    }),
  );
  return refused;
}

describe('the client default rate against the service limit', () => {
  it('sends a few hundred requests from 8 concurrent callers at the defaults without one 429', async () => {
    // A fresh simulator: its limiter is the service's (a token bucket of 20 refilled at 20/s per key).
    const service = await startSimulator({});
    try {
      const demo = service.profiles.find((profile) => profile.name === 'demo');
      if (demo === undefined) throw new Error('the simulator has no demo profile');
      const client = createServiceClient(
        parseConnectionSettings({ baseUrl: service.url }),
        { apiKey: demo.apiKey, apiSecret: demo.apiSecret, profileGuid: demo.profileGuid },
        // No retries: a 429 must show as a refused request, not be hidden by waiting it out.
        { retry: { maxAttempts: 1 } },
      );

      const refused = await requestMany(client, 240, 8);

      expect(refused).toEqual([]);
      expect(client.stats).toEqual({ requestsSent: 240, retries: 0, rateLimited: 0, demoDataAnswers: 240 });
    } finally {
      await service.close();
    }
  });

  it('meets 429s at twice the default rate (the check above can fail)', async () => {
    const service = await startSimulator({});
    try {
      const demo = service.profiles.find((profile) => profile.name === 'demo');
      if (demo === undefined) throw new Error('the simulator has no demo profile');
      const client = createServiceClient(
        parseConnectionSettings({ baseUrl: service.url, requestsPerSecond: 40 }),
        { apiKey: demo.apiKey, apiSecret: demo.apiSecret, profileGuid: demo.profileGuid },
        { retry: { maxAttempts: 1 } },
      );

      const refused = await requestMany(client, 100, 8);

      expect(refused.length).toBeGreaterThan(0);
      expect(refused.every((error) => error instanceof PbsHttpError && error.status === 429)).toBe(true);
      expect(client.stats.rateLimited).toBe(refused.length);
    } finally {
      await service.close();
    }
  });
});

describe('createServiceClient', () => {
  it('returns a client that speaks the wire shape of the settings', () => {
    const settings = parseConnectionSettings({
      baseUrl: 'https://pbs.example.com',
      shape: { pagination: { style: 'cursor', next: { from: 'link-header' } } },
    });

    const client = createServiceClient(settings, { apiKey: 'k', apiSecret: 's' });

    expect(client.shape.pagination).toMatchObject({
      style: 'cursor',
      cursorParam: 'cursor',
      next: { from: 'link-header' },
    });
  });

  it('returns a client that signs with the credentials given, read by the service', async () => {
    const demo = simulator.profiles.find((profile) => profile.name === 'demo');
    if (demo === undefined) throw new Error('the simulator has no demo profile');
    const client = createServiceClient(
      { baseUrl: simulator.url, requestsPerSecond: 20 },
      { apiKey: demo.apiKey, apiSecret: demo.apiSecret, profileGuid: demo.profileGuid },
    );

    const pages = client.transactionPages({});
    const first = await pages[Symbol.asyncIterator]().next();

    expect(first.done).toBe(false);
    expect(first.value?.items.length).toBeGreaterThan(0);
  });

  it('refuses a wrong secret with the service answer, so the credentials are the ones passed', async () => {
    const demo = simulator.profiles.find((profile) => profile.name === 'demo');
    if (demo === undefined) throw new Error('the simulator has no demo profile');
    const client = createServiceClient(
      { baseUrl: simulator.url, retry: { maxAttempts: 1 } },
      { apiKey: demo.apiKey, apiSecret: 'not-the-secret', profileGuid: demo.profileGuid },
    );

    const error = await client
      .transactionPages({})
      [Symbol.asyncIterator]()
      .next()
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(PbsHttpError);
    expect((error as PbsHttpError).status).toBe(401);
  });
});
