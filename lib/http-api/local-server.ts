/**
 * FOR LOCAL USE ONLY (`npm run serve`): a node:http adapter that feeds the HTTP API handler
 * API Gateway v2 events.
 */
import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApiEvent, ApiResult } from './api.ts';

/** Largest body the adapter reads (API Gateway's own limit is 10 MB); the API refuses > 64 KiB. */
const MAX_READ_BYTES = 1024 * 1024;

/**
 * Converts a node request (body already read) into an API Gateway HTTP API v2 event. A body that
 * is not valid UTF-8 is passed base64-encoded, byte for byte (a JS string would replace the
 * invalid bytes with U+FFFD, and the API would never see them to refuse them).
 */
export function toApiEvent(request: IncomingMessage, body: Buffer, now: Date = new Date()): ApiEvent {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [name, value] of url.searchParams)
    query[name] = name in query ? `${query[name]},${value}` : value;
  const method = (request.method ?? 'GET').toUpperCase();
  const host = headers.host ?? 'localhost';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.replace(/^\?/, ''),
    headers,
    ...(Object.keys(query).length > 0 ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: host,
      domainPrefix: host.split('.')[0] ?? host,
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: `local-${now.getTime().toString(36)}`,
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length > 0 ? { body: isUtf8(body) ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isUtf8(body),
  };
}

/** Writes an API Gateway v2 structured result to a node response. */
export function writeApiResult(response: ServerResponse, result: ApiResult): void {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
  response.writeHead(result.statusCode ?? 200, headers);
  const body = result.body ?? '';
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_READ_BYTES) return null;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** A running local API server. */
export interface LocalApiServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `handler` over node:http on `host:port` (port 0: any free port). */
export async function startLocalApiServer(
  handler: (event: ApiEvent) => Promise<ApiResult>,
  options: { host?: string; port?: number } = {},
): Promise<LocalApiServer> {
  const server: Server = createServer((request, response) => {
    void (async () => {
      try {
        const body = await readBody(request);
        if (body === null) {
          writeApiResult(response, { statusCode: 413, body: '{"error":{"code":"payload_too_large"}}' });
          return;
        }
        writeApiResult(response, await handler(toApiEvent(request, body)));
      } catch {
        if (!response.headersSent)
          writeApiResult(response, { statusCode: 500, body: '{"message":"Internal Server Error"}' });
        else response.destroy();
      }
    })();
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
