/**
 * FOR LOCAL USE ONLY (`npm run serve`): a node:http adapter that feeds the HTTP API handler
 * API Gateway v2 events, and an in-process stand-in for the export state machine. In AWS the
 * export runs on Step Functions (Plan → Map over shards → Finish, catch → MarkFailed); this
 * runner only replays that order with the same task functions so the API can be tried on a
 * laptop. It is not a scheduler and has no retries or durability.
 */
import { isUtf8 } from 'node:buffer';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pLimit from 'p-limit';
import type { ApiEvent, ApiResult } from './api.ts';
import type { ExportInput } from './contract.ts';
import type { ExecutionStarter } from './start.ts';
import type { Workers } from './workers.ts';

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

/** What the local runner reports. */
export interface LocalRunEvents {
  onDone?: (jobId: string, state: 'succeeded' | 'failed') => void;
  /** The plan task found the profile's slot held (`ProfileBusyError`) and will be retried. */
  onBusy?: (jobId: string) => void;
}

/**
 * How the plan task is retried on `ProfileBusyError`, as the state machine's retrier does:
 * exponential backoff with full jitter. Default: 100 ms × 1.5ⁿ up to 2 s, 200 attempts.
 */
export interface BusyRetry {
  intervalMs: number;
  backoffRate: number;
  maxDelayMs: number;
  maxAttempts: number;
}

const DEFAULT_BUSY_RETRY: BusyRetry = {
  intervalMs: 100,
  backoffRate: 1.5,
  maxDelayMs: 2000,
  maxAttempts: 200,
};

/** The local stand-in for the export state machine, and a way to wait for what it runs. */
export interface LocalStarter extends ExecutionStarter {
  /** Resolves when every export started so far has ended. */
  idle(): Promise<void>;
}

/**
 * Starts exports in-process: plan (retried while the profile's slot is held, see
 * {@link BusyRetry}), every shard (`shardConcurrency` at a time), finish; on any error the fail task with `{ Error, Cause }` shaped as Step Functions hands it. A job id is run
 * at most once, as an execution name is. LOCAL USE ONLY (see the module comment).
 */
export function createLocalStarter(
  tasks: Workers,
  options: LocalRunEvents & { shardConcurrency?: number; busyRetry?: Partial<BusyRetry> } = {},
): LocalStarter {
  const busy = { ...DEFAULT_BUSY_RETRY, ...options.busyRetry };
  const plan = async (input: ExportInput) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await tasks.plan(input);
      } catch (error) {
        if ((error as Error | null)?.name !== 'ProfileBusyError' || attempt >= busy.maxAttempts) throw error;
        options.onBusy?.(input.jobId);
        const ceiling = Math.min(busy.maxDelayMs, busy.intervalMs * busy.backoffRate ** (attempt - 1));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
      }
    }
  };
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  const run = async (input: ExportInput): Promise<void> => {
    try {
      const planned = await plan(input);
      const limit = pLimit(options.shardConcurrency ?? 2);
      await Promise.all(
        planned.shards.map((shard) => limit(() => tasks.fetchShard({ jobId: input.jobId, shard }))),
      );
      await tasks.finish(input);
      options.onDone?.(input.jobId, 'succeeded');
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const cause = JSON.stringify({ errorType: failure.name, errorMessage: failure.message });
      await tasks.fail({ jobId: input.jobId, error: { Error: failure.name, Cause: cause } }).catch(() => {});
      options.onDone?.(input.jobId, 'failed');
    }
  };
  return {
    async start(input) {
      if (started.has(input.jobId)) return;
      started.add(input.jobId);
      // Deferred so that the API answers before the export begins, as with StartExecution.
      const execution = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(input));
      running.add(execution);
      void execution.finally(() => running.delete(execution));
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
