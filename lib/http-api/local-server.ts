/**
 * FOR LOCAL USE ONLY (`npm run serve`): the API app served over `@hono/node-server`, so local
 * requests are real HTTP requests handled by the same Hono app as on Lambda.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';

/** What the server calls for each request (an app's `fetch`, possibly built on first use). */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** A running local API server. */
export interface LocalApiServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `fetch` over node:http on `host:port` (port 0: any free port). */
export async function startLocalApiServer(
  fetch: FetchHandler,
  options: { host?: string; port?: number } = {},
): Promise<LocalApiServer> {
  const host = options.host ?? '127.0.0.1';
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve, reject) => {
      const started = serve({ fetch, hostname: host, port: options.port ?? 0 }, (info: AddressInfo) =>
        resolve({ server: started, port: info.port }),
      );
      started.once('error', reject);
    },
  );
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        (server as { closeAllConnections?: () => void }).closeAllConnections?.();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
