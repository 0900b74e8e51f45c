import { describe, expect, it } from 'vitest';
import { CREDENTIALS, fakeClock, fakeFetch, json, recordingLogger } from '../../test/pbs/support.ts';
import { ValidationError } from '../errors.ts';
import { createPbsClient } from './client.ts';
import type { PbsClientConfig } from './config.ts';
import { PbsHttpError, PbsResponseError } from './errors.ts';
import type { SortKey, TransactionQuery } from './model.ts';
import { signRequest } from './signing.ts';

const START = Date.UTC(2026, 10, 22, 4, 0, 0);

function setup(handler: Parameters<typeof fakeFetch>[0], extra: Partial<PbsClientConfig> = {}) {
  const fake = fakeFetch(handler);
  const clock = fakeClock(START);
  const logger = recordingLogger();
  const client = createPbsClient({
    baseUrl: 'http://host.test',
    credentials: CREDENTIALS,
    fetch: fake.fetch,
    now: clock.now,
    sleep: clock.sleep,
    random: () => 0.5,
    logger,
    requestsPerSecond: 1000,
    ...extra,
  });
  return { client, requests: fake.requests, clock, logger };
}

async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

const page = (items: unknown[]) =>
  json({ items, page: 1, pageSize: 500, totalItems: items.length, totalPages: 1 });

describe('createPbsClient', () => {
  it.each<[string, TransactionQuery]>([
    ['sort', { sort: 'amount' as SortKey }],
    ['tokens[0]', { tokens: [''] }],
    ['window', { window: { start: new Date(2), end: new Date(1) } }],
    ['category', { category: '' }],
  ])('throws ValidationError for %s before sending any request', (field, query) => {
    const { client, requests } = setup(() => page([]));

    expect(() => client.transactions(query)).toThrow(expect.objectContaining({ field }));
    expect(requests).toHaveLength(0);
  });

  it('throws ValidationError for an invalid lastModifiedDate before sending any request', () => {
    const { client, requests } = setup(() => page([]));

    expect(() => client.timeline({ lastModifiedDate: new Date('x') })).toThrow(ValidationError);
    expect(requests).toHaveLength(0);
  });

  it('throws ValidationError for a base URL that is not absolute', () => {
    expect(() => createPbsClient({ baseUrl: 'host/api', credentials: CREDENTIALS })).toThrow(
      expect.objectContaining({ field: 'baseUrl' }),
    );
  });

  it('throws ValidationError for a timeline path outside /v2', () => {
    expect(() =>
      createPbsClient({
        baseUrl: 'http://h',
        credentials: CREDENTIALS,
        shape: { timeline: { path: '/v1/timeline' } },
      }),
    ).toThrow(expect.objectContaining({ field: 'shape.timeline.path' }));
  });

  it('returns transactions after retries, signing each attempt with a fresh timestamp', async () => {
    let calls = 0;
    const { client, requests } = setup(() =>
      ++calls < 3
        ? json({ error: { code: 'unavailable', message: 'x' } }, 503)
        : page([{ id: 'a', date: '2025-01-01T00:00:00Z' }]),
    );

    const items = await drain(client.transactions());

    expect(items).toEqual([{ id: 'a', date: '2025-01-01T00:00:00Z' }]);
    const stamps = requests.map((r) => r.url.searchParams.get('timestamp'));
    expect(new Set(stamps).size).toBe(3);
    for (const request of requests) {
      const timestamp = Number(request.url.searchParams.get('timestamp'));
      expect(request.url.searchParams.get('signature')).toBe(
        signRequest('/v2/transactions', timestamp, CREDENTIALS.apiSecret),
      );
    }
  });

  it('returns counters of requests, retries and 429 responses', async () => {
    let calls = 0;
    const { client } = setup(() =>
      ++calls === 1
        ? json({ error: { code: 'rate_limited', message: 'x' } }, 429, { 'retry-after': '1' })
        : json({ defiProtocols: [] }),
    );

    await client.defiProtocols();

    expect(client.stats).toEqual({ requestsSent: 2, retries: 1, rateLimited: 1, demoDataAnswers: 0 });
  });

  it("records answers marked as the simulator's demo data, and only those", async () => {
    let calls = 0;
    const { client } = setup(() =>
      ++calls === 1
        ? json({ defiProtocols: [] })
        : json({ defiProtocols: [] }, 200, { 'x-pbs-demo-data': 'simulator; not a real portfolio' }),
    );

    await client.defiProtocols();
    const before = client.servedDemoData();
    await client.defiProtocols();

    expect([before, client.servedDemoData(), client.stats.demoDataAnswers]).toEqual([false, true, 1]);
  });

  it('throws PbsHttpError after exactly maxAttempts requests on a persistent 500', async () => {
    const { client, requests } = setup(
      () => json({ error: { code: 'internal_error', message: 'boom' } }, 500),
      {
        retry: { maxAttempts: 3 },
      },
    );

    const error = await client.dateBounds().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsHttpError);
    expect(error).toMatchObject({ status: 500, serviceCode: 'internal_error', attempts: 3 });
    expect(requests).toHaveLength(3);
  });

  it('throws PbsResponseError without retrying when a transaction lacks its id', async () => {
    const { client, requests } = setup(() => page([{ date: '2025-01-01T00:00:00Z' }]));

    await expect(drain(client.transactions())).rejects.toMatchObject({
      name: 'PbsResponseError',
      field: 'items[0].id',
    });
    expect(requests).toHaveLength(1);
  });

  it('returns after re-signing once by the server Date on a 401 saying the timestamp is off', async () => {
    const serverNow = START + 10 * 60_000;
    const { client, requests } = setup((request) => {
      const skew = Math.abs(Number(request.url.searchParams.get('timestamp')) - serverNow);
      return skew > 300_000
        ? json({ error: { code: 'timestamp_out_of_range', message: 'timestamp is off' } }, 401, {
            date: new Date(serverNow).toUTCString(),
          })
        : json({ defiProtocols: ['Lido'] });
    });

    await expect(client.defiProtocols()).resolves.toEqual(['Lido']);
    expect(requests).toHaveLength(2);
    expect(Math.abs(Number(requests[1]?.url.searchParams.get('timestamp')) - serverNow)).toBeLessThan(1000);
  });

  it('throws a 401 mentioning the timestamp after one request when the server Date agrees with the clock', async () => {
    const { client, requests } = setup(() =>
      json(
        { error: { code: 'invalid_signature', message: 'signature does not match path and timestamp' } },
        401,
        {
          date: new Date(START).toUTCString(),
        },
      ),
    );

    await expect(client.defiProtocols()).rejects.toMatchObject({ status: 401, attempts: 1 });
    expect(requests).toHaveLength(1);
  });

  it('throws a 401 for a bad signature after one request', async () => {
    const { client, requests } = setup(() =>
      json({ error: { code: 'invalid_signature', message: 'no' } }, 401, {
        date: new Date(START).toUTCString(),
      }),
    );

    await expect(client.defiProtocols()).rejects.toMatchObject({ status: 401, attempts: 1 });
    expect(requests).toHaveLength(1);
  });

  it('returns date bounds and protocols read per the configured shape', async () => {
    const { client } = setup(
      ({ url }) =>
        url.pathname.endsWith('date-bounds')
          ? json({ first: '2024-01-01T00:00:00.000Z', last: '2024-06-30T12:00:00.000Z' })
          : json(['Aave V3', 'Lido']),
      {
        shape: {
          dateBounds: { earliestPath: 'first', latestPath: 'last' },
          metadata: { protocolsPath: null },
        },
      },
    );

    expect(await client.dateBounds()).toEqual({
      earliest: new Date('2024-01-01T00:00:00.000Z'),
      latest: new Date('2024-06-30T12:00:00.000Z'),
    });
    expect(await client.defiProtocols()).toEqual(['Aave V3', 'Lido']);
  });

  it('throws PbsResponseError for a date-bounds value that is not an instant', async () => {
    const { client } = setup(() => json({ earliestDate: 'soon', latestDate: null }));

    await expect(client.dateBounds()).rejects.toBeInstanceOf(PbsResponseError);
  });

  it('returns timeline items from the configured timeline path', async () => {
    const { client, requests } = setup(() => page([{ id: 'd', deleted: true }]), {
      shape: { timeline: { path: '/v2/timeline' } },
    });

    const items = await drain(client.timeline({ lastModifiedDate: new Date('2025-01-01T00:00:00Z') }));

    expect(items).toEqual([{ id: 'd', deleted: true }]);
    expect(requests[0]?.url.pathname).toBe('/v2/timeline');
    expect(requests[0]?.url.searchParams.get('lastModifiedDate')).toBe('2025-01-01T00:00:00.000Z');
  });
});
