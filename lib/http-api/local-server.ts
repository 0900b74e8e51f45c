/**
 * FOR LOCAL USE ONLY (`npm run serve`): the API app served over `@hono/node-server`, so local
 * requests are real HTTP requests handled by the same Hono app as on Lambda. Every request passes
 * the loopback guard first (`loopback-guard.ts`: `Host` and, on changes, `Origin` must name this
 * server), so a DNS-rebinding page cannot use it.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  type AllowedAuthorities,
  type FetchHandler,
  loopbackAuthorities,
  withLoopbackGuard,
} from './loopback-guard.ts';

export type { FetchHandler } from './loopback-guard.ts';

/** A running local API server. */
export interface LocalApiServer {
  url: string;
  close(): Promise<void>;
}

/** Options of {@link startLocalApiServer}. */
export interface LocalApiServerOptions {
  /** Address to listen on. Default `127.0.0.1`. */
  host?: string;
  /** Port (0: any free port). Default 0. */
  port?: number;
  /** URL clients reach the server at besides loopback (e.g. through a proxy): its `Host` is accepted too. */
  publicUrl?: string;
}

/** Serves `fetch` over node:http on `host:port` (port 0: any free port), behind the loopback guard. */
export async function startLocalApiServer(
  fetch: FetchHandler,
  options: LocalApiServerOptions = {},
): Promise<LocalApiServer> {
  const host = options.host ?? '127.0.0.1';
  // Set once listening; until then (no request can be answered yet) nothing is allowed.
  let allowed: AllowedAuthorities = { hosts: new Set(), origins: new Set() };
  const guarded = withLoopbackGuard(fetch, () => allowed);
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve, reject) => {
      const started = serve(
        { fetch: guarded, hostname: host, port: options.port ?? 0 },
        (info: AddressInfo) => resolve({ server: started, port: info.port }),
      );
      started.once('error', reject);
    },
  );
  const url = `http://${host}:${port}`;
  allowed = loopbackAuthorities(port, [url, ...(options.publicUrl !== undefined ? [options.publicUrl] : [])]);
  return {
    url,
    close: () =>
      new Promise<void>((resolve, reject) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
