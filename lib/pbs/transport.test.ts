import { describe, expect, it } from 'vitest';
import { CREDENTIALS, fakeFetch, json } from '../../test/pbs/support.ts';
import { PbsHttpError, PbsNetworkError, PbsResponseError, PbsTimeoutError } from './errors.ts';
import { signRequest } from './signing.ts';
import { endpointTarget, type SendOptions, sendSigned } from './transport.ts';

const TS = 1763790000000;
const target = endpointTarget('http://host.test/api', '/v2/transactions', [
  ['t', 'ETH'],
  ['t', 'USDC'],
  ['p', 'Aave V3'],
]);

function options(fetchImpl: typeof fetch, extra: Partial<SendOptions> = {}): SendOptions {
  return {
    fetch: fetchImpl,
    credentials: CREDENTIALS,
    timeoutMs: 1000,
    maxResponseBytes: 1 << 20,
    timestamp: TS,
    nowMs: TS,
    ...extra,
  };
}

describe('sendSigned', () => {
  it('returns the parsed JSON body of a 2xx response', async () => {
    const fake = fakeFetch(() => json({ items: [1] }));

    const response = await sendSigned(target, options(fake.fetch));

    expect(response.body).toEqual({ items: [1] });
  });

  it('sends the endpoint parameters, then timestamp, then the signature of the path from /v2', async () => {
    const fake = fakeFetch(() => json({}));

    await sendSigned(target, options(fake.fetch));

    const url = fake.requests[0]?.url;
    expect(url?.pathname).toBe('/api/v2/transactions');
    expect([...(url?.searchParams ?? [])]).toEqual([
      ['t', 'ETH'],
      ['t', 'USDC'],
      ['p', 'Aave V3'],
      ['timestamp', String(TS)],
      ['signature', signRequest('/v2/transactions', TS, CREDENTIALS.apiSecret)],
    ]);
  });

  it('encodes spaces in parameter values as %20', async () => {
    const fake = fakeFetch(() => json({}));

    await sendSigned(target, options(fake.fetch));

    expect(fake.requests[0]?.url.search).toContain('p=Aave%20V3');
  });

  it('sends x-api-key and accept headers and no profile header when none is configured', async () => {
    const fake = fakeFetch(() => json({}));

    await sendSigned(target, options(fake.fetch));

    expect(fake.requests[0]?.headers).toEqual({
      accept: 'application/json',
      'x-api-key': CREDENTIALS.apiKey,
    });
  });

  it('sends x-service-profile when a profile GUID is configured', async () => {
    const fake = fakeFetch(() => json({}));

    await sendSigned(target, options(fake.fetch, { credentials: { ...CREDENTIALS, profileGuid: 'pg-1' } }));

    expect(fake.requests[0]?.headers['x-service-profile']).toBe('pg-1');
  });

  it('throws PbsHttpError with the service code and message of a JSON error body', async () => {
    const fake = fakeFetch(() => json({ error: { code: 'bad_parameter', message: 'sort is wrong' } }, 400));

    const error = await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsHttpError);
    expect(error).toMatchObject({
      status: 400,
      serviceCode: 'bad_parameter',
      serviceMessage: 'sort is wrong',
    });
    expect((error as Error).message).toBe(
      'PBS GET /api/v2/transactions failed with HTTP 400: bad_parameter: sort is wrong',
    );
  });

  it('throws PbsHttpError carrying the status and the first 200 characters of a non-JSON error body', async () => {
    const body = `<html>${'x'.repeat(500)}</html>`;
    const fake = fakeFetch(() => new Response(body, { status: 502 }));

    const error = (await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e)) as PbsHttpError;

    expect(error.status).toBe(502);
    expect(error.bodyStart).toBe(`${body.slice(0, 200)}…`);
    expect(error.message).toContain('HTTP 502');
    expect(error.message).toContain('<html>xxx');
  });

  it('redacts a non-JSON error body before cutting it, so no part of a secret that straddles the cut shows', async () => {
    // The secret starts 10 characters before the cut at 200 and ends after it.
    const body = `${'x'.repeat(190)}${CREDENTIALS.apiSecret} and more text after it`;
    const fake = fakeFetch(() => new Response(body, { status: 400 }));

    const error = (await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e)) as PbsHttpError;

    expect(error.bodyStart).toBe(`${'x'.repeat(190)}[redacted]…`);
    expect(error.message).not.toContain(CREDENTIALS.apiSecret.slice(0, 4));
  });

  it('throws PbsHttpError with the body start for JSON that is not the documented error shape', async () => {
    const fake = fakeFetch(() => json({ message: 'nope' }, 403));

    const error = (await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e)) as PbsHttpError;

    expect(error).toMatchObject({ status: 403, serviceCode: null, bodyStart: '{"message":"nope"}' });
  });

  it('throws a retryable PbsHttpError with Retry-After for 429', async () => {
    const fake = fakeFetch(() =>
      json({ error: { code: 'rate_limited', message: 'slow down' } }, 429, { 'retry-after': '2' }),
    );

    await expect(sendSigned(target, options(fake.fetch))).rejects.toMatchObject({
      retryable: true,
      retryAfterMs: 2000,
    });
  });

  it('throws a non-retryable PbsHttpError for 401', async () => {
    const fake = fakeFetch(() => json({ error: { code: 'bad_signature', message: 'no' } }, 401));

    await expect(sendSigned(target, options(fake.fetch))).rejects.toMatchObject({
      status: 401,
      retryable: false,
    });
  });

  it('throws a retryable PbsResponseError for a truncated JSON body', async () => {
    const fake = fakeFetch(() => new Response('{"items":[{"id":"a"', { status: 200 }));

    const error = await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsResponseError);
    expect(error).toMatchObject({ retryable: true, field: '(body)' });
  });

  it('throws PbsNetworkError naming the socket error when fetch fails', async () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const fake = fakeFetch(() => Promise.reject(new TypeError('fetch failed', { cause: reset })));

    const error = await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsNetworkError);
    expect((error as Error).message).toContain('ECONNRESET');
    expect((error as Error).cause).toBeInstanceOf(TypeError);
  });

  it('throws PbsTimeoutError when the body stalls after the headers', async () => {
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"items":['));
      },
    });
    const fake = fakeFetch(() => new Response(stalled, { status: 200 }));

    const error = await sendSigned(target, options(fake.fetch, { timeoutMs: 20 })).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsTimeoutError);
    expect(error).toMatchObject({ retryable: true, path: '/api/v2/transactions' });
  });

  it('throws PbsTimeoutError when no response arrives in time', async () => {
    const fake = fakeFetch(
      () =>
        new Promise<Response>(() => {
          // never answers
        }),
    );

    await expect(sendSigned(target, options(fake.fetch, { timeoutMs: 10 }))).rejects.toBeInstanceOf(
      PbsTimeoutError,
    );
  });
});

describe('sendSigned error messages', () => {
  const signature = signRequest('/v2/transactions', TS, CREDENTIALS.apiSecret);
  const echo = `key=${CREDENTIALS.apiKey} secret=${CREDENTIALS.apiSecret} sig=${signature}`;
  const secrets = [CREDENTIALS.apiKey, CREDENTIALS.apiSecret, signature];

  it.each<[string, () => Response | Promise<Response>]>([
    ['a JSON error echoing them', () => json({ error: { code: 'bad_signature', message: echo } }, 401)],
    ['a text error echoing them', () => new Response(echo, { status: 500 })],
    ['a network failure echoing them', () => Promise.reject(new TypeError(echo))],
    ['a malformed body', () => new Response(echo, { status: 200 })],
  ])('returns messages without key, secret or signature for %s', async (_name, handler) => {
    const fake = fakeFetch(handler);

    const error = (await sendSigned(target, options(fake.fetch)).catch((e: unknown) => e)) as Error;

    expect(error).toBeInstanceOf(Error);
    for (const secret of secrets) {
      expect(error.message).not.toContain(secret);
      expect(JSON.stringify(error)).not.toContain(secret);
    }
    expect(error.message).not.toContain('?');
  });
});
