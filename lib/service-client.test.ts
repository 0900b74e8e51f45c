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
