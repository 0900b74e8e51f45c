/**
 * The client against a server that misbehaves on purpose (loopback HTTP): amounts sent as JSON
 * numbers, redirects to another host, endless bodies, error bodies that echo the credentials in
 * other encodings, contradictory date-bounds. Each answer must be an exact result or a clean,
 * named failure.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isExactNumber, stringifyJson } from '../../lib/domain/index.ts';
import { createPbsClient } from '../../lib/pbs/client.ts';
import {
  PbsHttpError,
  PbsRedirectError,
  PbsResponseError,
  PbsResponseTooLargeError,
} from '../../lib/pbs/errors.ts';
import type { RawTransaction } from '../../lib/pbs/model.ts';
import { getPath } from '../../lib/pbs/path.ts';
import { secretForms } from '../../lib/redaction.ts';
import { type HostileServer, startHostileServer, transactionText } from '../support/hostile-server.ts';

const servers: HostileServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

const BOUNDS = '{"earliestDate":"2025-01-01T00:00:00.000Z","latestDate":"2025-12-31T00:00:00.000Z"}';
const SECRET = 's3cr/t+K=ey&é"q<0>';
const API_KEY = 'key with spaces/and+plus';

async function serve(...args: Parameters<typeof startHostileServer>): Promise<HostileServer> {
  const server = await startHostileServer(...args);
  servers.push(server);
  return server;
}

function clientOf(server: HostileServer, extra: Partial<Parameters<typeof createPbsClient>[0]> = {}) {
  return createPbsClient({
    baseUrl: server.url,
    credentials: { apiKey: API_KEY, apiSecret: SECRET },
    retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 },
    sleep: async () => {},
    logger: { warn: () => {}, debug: () => {} },
    ...extra,
  });
}

async function collect(iterable: AsyncIterable<RawTransaction>): Promise<RawTransaction[]> {
  const items: RawTransaction[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

describe('client against a server sending amounts as JSON numbers', () => {
  it('keeps number tokens a double cannot hold as their exact source text', async () => {
    const server = await serve({
      dateBounds: BOUNDS,
      transactions: [
        transactionText({
          id: 'tx-1',
          date: '2025-02-01T00:00:00.000Z',
          amount: '1234567890.123456789012345678',
          value: '12345678901234567890123',
        }),
        transactionText({ id: 'tx-2', date: '2025-02-02T00:00:00.000Z', amount: '1.50', value: '1e3' }),
      ],
    });

    const items = await collect(clientOf(server).transactions());

    const amounts = items.map((item) => getPath(item, 'movements.0.amount'));
    const values = items.map((item) => getPath(item, 'value.amount'));
    expect(amounts.every(isExactNumber)).toBe(true);
    expect(amounts.map((amount) => String(amount))).toEqual(['1234567890.123456789012345678', '1.50']);
    expect(values.map((value) => String(value))).toEqual(['12345678901234567890123', '1e3']);
  });

  it('writes a lossless body back byte for byte', async () => {
    const text = transactionText({
      id: 'tx-1',
      date: '2025-02-01T00:00:00.000Z',
      amount: '-0.024123745819401519',
      value: '-0',
    });
    const server = await serve({ dateBounds: BOUNDS, transactions: [text] });

    const [item] = await collect(clientOf(server).transactions());

    expect(stringifyJson(item)).toBe(text);
  });

  it('gives numbers a double holds exactly as plain numbers', async () => {
    const server = await serve({
      dateBounds: BOUNDS,
      transactions: [
        transactionText({ id: 'tx-1', date: '2025-02-01T00:00:00.000Z', amount: '1.5', value: '42' }),
      ],
    });

    const [item] = await collect(clientOf(server).transactions());

    expect(getPath(item, 'movements.0.amount')).toBe(1.5);
    expect(getPath(item, 'value.amount')).toBe(42);
  });
});

describe('client against a server that redirects', () => {
  it('refuses a redirect to another host, naming the status and the origin, and sends it nothing', async () => {
    const elsewhere = await serve({ dateBounds: BOUNDS, transactions: [] });
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/v2/transactions/date-bounds?steal=1` });
      response.end();
      return true;
    });

    const error = await clientOf(server)
      .dateBounds()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsRedirectError);
    expect((error as PbsRedirectError).status).toBe(302);
    expect((error as PbsRedirectError).message).toContain(elsewhere.url);
    expect((error as PbsRedirectError).message).not.toContain('steal');
    expect(elsewhere.requests).toEqual([]);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses a 307 to the same host without retrying it', async () => {
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (request, response) => {
      if (request.url?.startsWith('/moved')) return false;
      response.writeHead(307, { location: '/moved/v2/transactions/date-bounds' });
      response.end();
      return true;
    });

    const error = await clientOf(server)
      .dateBounds()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsRedirectError);
    expect((error as PbsRedirectError).targetOrigin).toBe(server.url);
    expect(server.requests.map((r) => r.url.split('?')[0])).toEqual(['/v2/transactions/date-bounds']);
  });
});

describe('client against a server with an endless body', () => {
  it('stops reading past maxResponseBytes and fails with the limit named', async () => {
    let written = 0;
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      response.write('{"items":[');
      const pump = () => {
        // Bounded: 64 MiB at most, far past the limit, then it ends on its own.
        while (written < 64 * 1024 * 1024 && response.write(chunk)) written += chunk.length;
        if (written >= 64 * 1024 * 1024 || response.destroyed) return response.end();
        response.once('drain', pump);
      };
      response.on('close', () => {
        written = Number.POSITIVE_INFINITY;
      });
      pump();
      return true;
    });

    const error = await collect(clientOf(server, { maxResponseBytes: 1024 * 1024 }).transactions()).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(PbsResponseTooLargeError);
    expect((error as Error).message).toContain('1048576 bytes (maxResponseBytes)');
    expect(server.requests).toHaveLength(1);
  });

  it('fails before reading when Content-Length declares more than the limit', async () => {
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json',
        'content-length': String(10 * 1024 * 1024),
      });
      response.write('{"items":[');
      return true;
    });

    const error = await collect(clientOf(server, { maxResponseBytes: 1024 * 1024 }).transactions()).catch(
      (e: unknown) => e,
    );

    expect(error).toBeInstanceOf(PbsResponseTooLargeError);
  });
});

describe('client against a server that echoes the credentials', () => {
  it.each([
    ['URL-encoded', (text: string) => encodeURIComponent(text)],
    ['JSON-escaped', (text: string) => JSON.stringify(text).slice(1, -1)],
    ['form-encoded', (text: string) => encodeURIComponent(text).replace(/%20/g, '+')],
    ['base64', (text: string) => Buffer.from(text).toString('base64')],
    ['raw', (text: string) => text],
  ])('redacts the secret and the key %s in a non-JSON error body', async (_name, encode) => {
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(400, { 'content-type': 'text/plain' });
      response.end(`bad request: secret=${encode(SECRET)} key=${encode(API_KEY)}`);
      return true;
    });

    const error = (await clientOf(server)
      .dateBounds()
      .catch((e: unknown) => e)) as PbsHttpError;

    expect(error).toBeInstanceOf(PbsHttpError);
    expect(error.message).toContain('[redacted]');
    for (const form of [...secretForms(SECRET), ...secretForms(API_KEY)]) {
      expect(error.message).not.toContain(form);
    }
  });

  it('redacts the secret JSON-escaped inside a service error message', async () => {
    const server = await serve({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'bad_signature', message: `secret was ${SECRET}` } }));
      return true;
    });

    const error = (await clientOf(server)
      .dateBounds()
      .catch((e: unknown) => e)) as PbsHttpError;

    expect(error.serviceMessage).toBe('secret was [redacted]');
  });
});

describe('client against inconsistent date-bounds', () => {
  it.each([
    [
      'latest before earliest',
      '{"earliestDate":"2025-06-01T00:00:00.000Z","latestDate":"2025-01-01T00:00:00.000Z"}',
      'latestDate',
    ],
    [
      'earliest null, latest set',
      '{"earliestDate":null,"latestDate":"2025-01-01T00:00:00.000Z"}',
      'earliestDate',
    ],
    [
      'latest null, earliest set',
      '{"earliestDate":"2025-01-01T00:00:00.000Z","latestDate":null}',
      'latestDate',
    ],
  ])('refuses %s, naming the field', async (_name, body, field) => {
    const server = await serve({ dateBounds: body, transactions: [] });

    const error = await clientOf(server)
      .dateBounds()
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(PbsResponseError);
    expect((error as PbsResponseError).field).toBe(field);
    expect((error as Error).message).toContain('inconsistent date-bounds');
  });

  it('still reads both bounds null as an empty portfolio', async () => {
    const server = await serve({ dateBounds: '{"earliestDate":null,"latestDate":null}', transactions: [] });

    await expect(clientOf(server).dateBounds()).resolves.toEqual({ earliest: null, latest: null });
  });
});
