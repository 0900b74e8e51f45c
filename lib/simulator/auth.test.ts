import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedGet } from '../../test/support/simulator.ts';
import { signRequest } from '../pbs/signing.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile } from './types.ts';

const NOW = 1_790_000_000_000;
const demo = DEFAULT_PROFILES[0] as SimulatedProfile;
const acme = DEFAULT_PROFILES[1] as SimulatedProfile;

async function errorOf(response: Response): Promise<{ status: number; code: string; message: string }> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  return { status: response.status, code: body.error.code, message: body.error.message };
}

describe('simulator authentication', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ now: () => NOW, rateLimitPerSecond: 0 });
  });
  afterAll(() => sim.close());

  it('returns 200 for a request signed per the spec', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW });
    expect(response.status).toBe(200);
  });

  it('returns 401 with the JSON error shape for a wrong digest', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', {
      timestamp: NOW,
      signature: 'ab'.repeat(32),
    });
    expect(await errorOf(response)).toMatchObject({ status: 401, code: 'invalid_signature' });
  });

  it('returns 401 for the right digest in uppercase hexadecimal', async () => {
    const signature = signRequest('/v2/accounts', NOW, demo.apiSecret).toUpperCase();
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, signature });
    expect(response.status).toBe(401);
  });

  it('returns 401 for a signature over a different path', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', {
      timestamp: NOW,
      signPath: '/v2/ledgers',
    });
    expect(response.status).toBe(401);
  });

  it('returns 401 for a signature keyed with another profile secret', async () => {
    const signature = signRequest('/v2/accounts', NOW, acme.apiSecret);
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, signature });
    expect(response.status).toBe(401);
  });

  it('returns 401 when the signature is missing', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, omit: ['signature'] });
    expect(await errorOf(response)).toMatchObject({ status: 401, code: 'missing_signature' });
  });

  it('returns 401 when the timestamp is missing', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, omit: ['timestamp'] });
    expect(await errorOf(response)).toMatchObject({ status: 401, code: 'invalid_timestamp' });
  });

  it('returns 401 when the timestamp is not a decimal integer', async () => {
    const url = `${sim.url}/v2/accounts?timestamp=${NOW}.5&signature=${signRequest('/v2/accounts', NOW, demo.apiSecret)}`;
    const response = await fetch(url, { headers: { 'x-api-key': demo.apiKey } });
    expect(response.status).toBe(401);
  });

  it('returns 401 saying the timestamp is off when it is more than 300 s behind the server clock', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW - 300_001 });
    const error = await errorOf(response);
    expect(error).toMatchObject({ status: 401, code: 'timestamp_out_of_range' });
    expect(error.message).toMatch(/timestamp is off/);
  });

  it('returns 401 when the timestamp is more than 300 s ahead of the server clock', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW + 300_001 });
    expect(response.status).toBe(401);
  });

  it('returns 200 for a timestamp exactly 300 s off', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW - 300_000 });
    expect(response.status).toBe(200);
  });

  it('returns a Date header from the injected server clock', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW });
    expect(response.headers.get('date')).toBe(new Date(NOW).toUTCString());
  });

  it('returns 401 when the x-api-key header is missing', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, apiKey: null });
    expect(await errorOf(response)).toMatchObject({ status: 401, code: 'missing_api_key' });
  });

  it('returns 401 for an unknown API key', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, apiKey: 'pk_unknown' });
    expect(await errorOf(response)).toMatchObject({ status: 401, code: 'invalid_api_key' });
  });

  it('returns 200 when x-service-profile is the key profile GUID', async () => {
    const headers = { 'x-service-profile': demo.profileGuid };
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, headers });
    expect(response.status).toBe(200);
  });

  it('returns 403 when x-service-profile is the GUID of another key', async () => {
    const headers = { 'x-service-profile': acme.profileGuid };
    const response = await signedGet(sim.url, demo, '/v2/accounts', { timestamp: NOW, headers });
    expect(await errorOf(response)).toMatchObject({ status: 403, code: 'profile_not_allowed' });
  });

  it('returns 404 for an unknown path', async () => {
    const response = await signedGet(sim.url, demo, '/v2/nothing-here', { timestamp: NOW });
    expect(await errorOf(response)).toMatchObject({ status: 404, code: 'not_found' });
  });

  it('returns 404 for a V1 path', async () => {
    const response = await signedGet(sim.url, demo, '/v1/transactions', { timestamp: NOW });
    expect(response.status).toBe(404);
  });

  it('returns 405 for a method other than GET', async () => {
    const response = await fetch(`${sim.url}/v2/accounts`, {
      method: 'POST',
      headers: { 'x-api-key': demo.apiKey },
    });
    expect(response.status).toBe(405);
  });
});

describe('simulator mounted under a base path', () => {
  let sim: RunningSimulator;

  beforeAll(async () => {
    sim = await startSimulator({ basePath: '/api', rateLimitPerSecond: 0 });
  });
  afterAll(() => sim.close());

  it('returns 200 for /api/v2/accounts signed over /v2/accounts', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', { basePath: '/api' });
    expect(response.status).toBe(200);
  });

  it('returns 401 when the base path is included in the signed path', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts', {
      basePath: '/api',
      signPath: '/api/v2/accounts',
    });
    expect(response.status).toBe(401);
  });

  it('returns 404 for the endpoint path without the base path', async () => {
    const response = await signedGet(sim.url, demo, '/v2/accounts');
    expect(response.status).toBe(404);
  });
});
