import { describe, expect, it } from 'vitest';
import { createPbsClient } from '../../lib/pbs/client.ts';
import { PbsHttpError } from '../../lib/pbs/errors.ts';
import { signRequest } from '../../lib/pbs/signing.ts';
import { closeSimulatorsAfterEach, drain, startHarness } from './harness.ts';

closeSimulatorsAfterEach();

const HEX = '0123456789abcdef';

describe('PbsClient signing against the simulator', () => {
  it('returns 401 for every single-character alteration of a signature the service accepted', async () => {
    const h = await startHarness({ rateLimitPerSecond: 100_000 });
    await h.client().defiProtocols();
    const sent = h.sim.requestLog[0];
    if (!sent) throw new Error('no request logged');
    const signature = sent.query.find(([k]) => k === 'signature')?.[1] ?? '';
    const replay = async (sig: string) => {
      const query = new URLSearchParams(
        sent.query.map(([k, v]): [string, string] => [k, k === 'signature' ? sig : v]),
      );
      const response = await fetch(`${h.sim.url}${sent.path}?${query}`, {
        headers: { 'x-api-key': sent.apiKey ?? '' },
      });
      await response.arrayBuffer();
      return response.status;
    };
    const altered = [...signature].flatMap((char, i) => [
      `${signature.slice(0, i)}${HEX[(HEX.indexOf(char) + 1) % 16]}${signature.slice(i + 1)}`,
      `${signature.slice(0, i)}${char.toUpperCase() === char ? 'g' : char.toUpperCase()}${signature.slice(i + 1)}`,
    ]);

    const original = await replay(signature);
    const statuses = [];
    for (const sig of altered) statuses.push(await replay(sig));

    expect(original).toBe(200);
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(altered).toHaveLength(128);
    expect(new Set(statuses)).toEqual(new Set([401]));
  });

  it('returns data through a base URL with a prefix while signing the path from /v2', async () => {
    const h = await startHarness({ basePath: '/api' });
    const p = h.profile();
    const client = createPbsClient({
      baseUrl: `${h.sim.url}/api/`,
      credentials: { apiKey: p.apiKey, apiSecret: p.apiSecret },
      now: h.clock.now,
      sleep: h.clock.sleep,
    });

    const accounts = await drain(client.accounts());

    const entry = h.sim.requestLog[0];
    const query = new Map(entry?.query);
    expect(accounts.length).toBeGreaterThan(0);
    expect(entry?.path).toBe('/api/v2/accounts');
    expect(query.get('signature')).toBe(
      signRequest('/v2/accounts', Number(query.get('timestamp')), p.apiSecret),
    );
  });

  it('returns every page following Link URLs under a prefixed base URL, re-signed over the path from /v2', async () => {
    const shape = {
      pagination: {
        style: 'cursor' as const,
        cursorParam: 'after',
        limitParam: 'limit',
        limit: 50,
        next: { from: 'link-header' as const },
        totalItemsPath: null,
      },
    };
    const reference = await startHarness();
    const expected = (await drain(reference.client().transactions())).map((tx) => tx.id);
    const h = await startHarness({ basePath: '/api', shape });
    const client = h.client({ baseUrl: `${h.sim.url}/api` });

    const ids = (await drain(client.transactions({ sort: 'date' }))).map((tx) => tx.id);

    expect(ids).toEqual(expected);
    expect(h.sim.requestLog.length).toBeGreaterThan(2);
    expect(
      h.sim.requestLog.every((entry) => entry.status === 200 && entry.path === '/api/v2/transactions'),
    ).toBe(true);
  });

  it('returns data without sending x-service-profile when no profile GUID is configured', async () => {
    const h = await startHarness();

    await h.client().defiProtocols();

    expect(h.sim.requestLog[0]?.headers['x-service-profile']).toBeUndefined();
  });

  it('returns data sending x-service-profile when the profile GUID is configured', async () => {
    const h = await startHarness();
    const p = h.profile();
    const client = h.client({
      credentials: { apiKey: p.apiKey, apiSecret: p.apiSecret, profileGuid: p.profileGuid },
    });

    await client.defiProtocols();

    expect(h.sim.requestLog[0]?.headers['x-service-profile']).toBe(p.profileGuid);
  });

  it('throws PbsHttpError 403 with the service code for a foreign profile GUID, without retrying', async () => {
    const h = await startHarness();
    const p = h.profile('acme');
    const foreign = h.profile('demo').profileGuid;
    const client = h.client({
      credentials: { apiKey: p.apiKey, apiSecret: p.apiSecret, profileGuid: foreign },
    });

    const error = await client.dateBounds().catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsHttpError);
    expect(error).toMatchObject({ status: 403, serviceCode: 'profile_not_allowed', attempts: 1 });
    expect(h.sim.requestLog).toHaveLength(1);
  });

  it('throws PbsHttpError 401 without the secret, key or signature in its message for a wrong secret', async () => {
    const h = await startHarness();
    const p = h.profile();
    const client = h.client({ credentials: { apiKey: p.apiKey, apiSecret: 'not-the-secret' } });

    const error = (await client.defiProtocols().catch((e: unknown) => e)) as PbsHttpError;

    const signature = new Map(h.sim.requestLog[0]?.query).get('signature') ?? '';
    expect(error).toMatchObject({ status: 401, serviceCode: 'invalid_signature', attempts: 1 });
    for (const secret of ['not-the-secret', p.apiKey, signature]) expect(error.message).not.toContain(secret);
  });

  it('returns data after correcting a client clock that is 10 minutes late by the server Date header', async () => {
    const h = await startHarness();
    const client = h.client({ now: () => h.clock.now() - 600_000 });

    await expect(client.defiProtocols()).resolves.toBeInstanceOf(Array);
    expect(h.sim.requestLog.map((entry) => entry.status)).toEqual([401, 200]);
    expect(h.logger.warnings).toHaveLength(1);
  });

  it('returns data for every concurrent request refused for the timestamp, correcting the clock once', async () => {
    const h = await startHarness();
    const client = h.client({ now: () => h.clock.now() - 600_000, requestsPerSecond: 1000, burst: 10 });

    const results = await Promise.all([1, 2, 3, 4].map(() => client.defiProtocols()));

    expect(results.every((names) => Array.isArray(names))).toBe(true);
    expect(h.sim.requestLog.filter((entry) => entry.status === 401)).toHaveLength(4);
    expect(h.logger.warnings).toHaveLength(1);
  });

  it('returns data after a key rotation by signing again with refreshed credentials, once for concurrent refusals', async () => {
    const h = await startHarness();
    const rotated = { apiKey: 'pk_acme_rotated_0002', apiSecret: 'sk_acme_rotated_secret_0002' };
    const client = h.client({ requestsPerSecond: 1000, burst: 10, refreshCredentials: async () => rotated });
    let refreshes = 0;
    const counting = h.client({
      requestsPerSecond: 1000,
      burst: 10,
      refreshCredentials: async () => {
        refreshes += 1;
        return rotated;
      },
    });
    h.sim.rotateCredentials('acme', rotated);

    await expect(client.defiProtocols()).resolves.toBeInstanceOf(Array);
    await Promise.all([1, 2, 3].map(() => counting.defiProtocols()));
    await counting.dateBounds();

    expect(refreshes).toBe(1);
    expect(h.sim.requestLog.at(-1)).toMatchObject({ status: 200, apiKey: rotated.apiKey });
  });

  it('throws the 401 when refreshed credentials are the ones refused, without the secret in it', async () => {
    const h = await startHarness();
    const p = h.profile();
    const stale = { apiKey: p.apiKey, apiSecret: p.apiSecret };
    const client = h.client({ refreshCredentials: async () => stale });
    h.sim.rotateCredentials('acme', { apiKey: 'pk_acme_rotated_0003', apiSecret: 'sk_rotated_0003' });

    const error = (await client.defiProtocols().catch((e: unknown) => e)) as PbsHttpError;

    expect(error).toMatchObject({ status: 401, serviceCode: 'invalid_api_key', attempts: 1 });
    expect(error.message).not.toContain(p.apiSecret);
  });
});
