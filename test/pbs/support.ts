import type { PbsLogger } from '../../lib/pbs/config.ts';

/** One request seen by a fake fetch. */
export interface RecordedRequest {
  url: URL;
  headers: Record<string, string>;
}

export type Handler = (request: RecordedRequest, index: number) => Response | Promise<Response>;

/** A fetch that records each request and answers with `handler`. */
export function fakeFetch(handler: Handler): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: RecordedRequest = {
      url: new URL(String(input)),
      headers: Object.fromEntries(new Headers(init?.headers).entries()),
    };
    requests.push(request);
    return handler(request, requests.length - 1);
  }) as typeof fetch;
  return { fetch: fetchImpl, requests };
}

/** A JSON response. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/**
 * A clock whose `sleep` moves time forward instead of waiting. Concurrent sleepers each move it
 * to at least their own wake-up time, so time only goes forward.
 */
export function fakeClock(start = Date.UTC(2026, 10, 22, 4, 0, 0)): {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  sleeps: number[];
} {
  let current = start;
  const sleeps: number[] = [];
  return {
    now: () => current,
    sleep: async (ms) => {
      sleeps.push(ms);
      current = Math.max(current, current + ms);
    },
    sleeps,
  };
}

/** A logger that records its calls. */
export function recordingLogger(): PbsLogger & { warnings: { message: string; context?: unknown }[] } {
  const warnings: { message: string; context?: unknown }[] = [];
  return {
    warnings,
    warn: (message, context) => {
      warnings.push({ message, context });
    },
    debug: () => {},
  };
}

export const CREDENTIALS = Object.freeze({
  apiKey: 'key-AAAA1111',
  apiSecret: 'secret-BBBB2222',
});
