/**
 * A paged `/v2/transactions` service on loopback, in a worker thread of its own: it sees requests
 * arrive while the test's thread is busy (even blocked), and counts them in shared memory the test
 * can read or wait on at any moment. Every request is answered after `latencyMs` with a page of
 * the default wire shape (page numbers with totals); the first `badBodies[page]` attempts at a
 * page number (in each listing, told apart by `startDate`) get a body that is not JSON instead:
 * truncated JSON and a non-JSON text in turn, both with a correct `Content-Length`.
 */
import { Worker } from 'node:worker_threads';

export interface PagingServerOptions {
  /** Transactions each listing holds. */
  total: number;
  latencyMs: number;
  /** Bad bodies for the first attempts at these page numbers, per listing. */
  badBodies?: Record<number, number>;
}

/** Indexes into {@link PagingServer.counters}. */
export const ARRIVED = 0;
export const IN_FLIGHT = 1;
export const MAX_IN_FLIGHT = 2;

export interface PagingServer {
  url: string;
  /** `[ARRIVED]` requests so far, `[IN_FLIGHT]` from arrival to the end of the answer, `[MAX_IN_FLIGHT]`. */
  counters: Int32Array;
  /** Every request's listing and page number, in order of arrival, with whether its body was bad. */
  log(): Promise<{ listing: string; page: number; bad: boolean }[]>;
  close(): Promise<void>;
}

// Plain JavaScript: the worker runs it as given, without the test's TypeScript loader.
const SERVER_SOURCE = `
const { createServer } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { total, latencyMs, badBodies } = workerData.options;
const counters = new Int32Array(workerData.shared);
const log = [];
const attempts = new Map();
const server = createServer((request, response) => {
  Atomics.add(counters, 0, 1);
  Atomics.notify(counters, 0);
  const inFlight = Atomics.add(counters, 1, 1) + 1;
  if (inFlight > Atomics.load(counters, 2)) Atomics.store(counters, 2, inFlight);
  response.on('close', () => Atomics.sub(counters, 1, 1));
  const url = new URL(request.url, 'http://x');
  const page = Number(url.searchParams.get('page'));
  const size = Number(url.searchParams.get('pageSize'));
  const listing = url.searchParams.get('startDate') ?? '';
  const key = listing + ' ' + page;
  const attempt = (attempts.get(key) ?? 0) + 1;
  attempts.set(key, attempt);
  const bad = attempt <= (badBodies[page] ?? 0);
  log.push({ listing, page, bad });
  const items = [];
  for (let n = (page - 1) * size; n < Math.min(total, page * size); n++) {
    items.push({ id: listing + '-' + n, date: '2025-01-01T00:00:00.000Z' });
  }
  const json = JSON.stringify({ items, page, pageSize: size, totalItems: total, totalPages: Math.ceil(total / size) });
  const body = !bad ? json : attempt % 2 === 1 ? json.slice(0, Math.floor(json.length / 2)) : '<html>busy</html>';
  setTimeout(() => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    response.end(body);
  }, latencyMs);
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => {
  if (message === 'log') parentPort.postMessage({ log });
  if (message === 'close') {
    server.closeAllConnections();
    server.close(() => parentPort.postMessage({ closed: true }));
  }
});
`;

/** Starts the service in its own worker thread. */
export async function startPagingServer(options: PagingServerOptions): Promise<PagingServer> {
  const shared = new SharedArrayBuffer(3 * Int32Array.BYTES_PER_ELEMENT);
  const worker = new Worker(SERVER_SOURCE, {
    eval: true,
    workerData: { shared, options: { badBodies: {}, ...options } },
  });
  const reply = <T>(field: string) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (message: Record<string, unknown>) => {
        if (!(field in message)) return;
        worker.off('message', onMessage);
        resolve(message[field] as T);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  const port = await reply<number>('port');
  return {
    url: `http://127.0.0.1:${port}`,
    counters: new Int32Array(shared),
    async log() {
      const answer = reply<{ listing: string; page: number; bad: boolean }[]>('log');
      worker.postMessage('log');
      return answer;
    },
    async close() {
      const closed = reply<boolean>('closed');
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}
