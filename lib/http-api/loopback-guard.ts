/**
 * FOR LOCAL USE ONLY (`npm run serve`): who may talk to a server on loopback.
 *
 * A local server that trusts every request without a token as its operator is open to DNS
 * rebinding: a page at `http://evil.example:PORT` whose name later resolves to 127.0.0.1 reads
 * and starts exports with the browser as its proxy. The browser still sends the page's own name
 * as `Host` (and as `Origin`), so:
 *
 * - every request must name the server as it is bound (`127.0.0.1:PORT`, `localhost:PORT`,
 *   `[::1]:PORT`, or the host of the configured public URL) in `Host`, else `421`, before any
 *   route runs;
 * - a state-changing request (anything but `GET`, `HEAD`, `OPTIONS`) that carries an `Origin`
 *   must come from one of those origins over `http`, else `403` (a cross-site form or script).
 *   A request without `Origin` (curl, the CLI) is not a browser's cross-site request.
 */
import { apiError } from './app.ts';

/** What the server calls for each request (an app's `fetch`, possibly built on first use). */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

/** Names of the loopback interface a browser on this machine may use for the server. */
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '[::1]'] as const;

/** Methods that change nothing: their `Origin` is not checked. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The `Host` values and origins that name a server. */
export interface AllowedAuthorities {
  /** `host:port` forms, lower case (the port left out only where it is the scheme's default). */
  hosts: ReadonlySet<string>;
  /** `scheme://host:port` forms, lower case, as browsers send `Origin`. */
  origins: ReadonlySet<string>;
}

/**
 * What names the server listening on loopback `port`, plus the authorities of `urls` (the URL
 * clients reach it at through a proxy, the address it listens on when that is not loopback).
 */
export function loopbackAuthorities(port: number, urls: readonly string[] = []): AllowedAuthorities {
  const hosts = new Set<string>();
  const origins = new Set<string>();
  for (const name of LOOPBACK_NAMES) {
    hosts.add(`${name}:${port}`);
    origins.add(`http://${name}:${port}`);
    // Browsers leave the default port out of Host and Origin.
    if (port === 80) {
      hosts.add(name);
      origins.add(`http://${name}`);
    }
  }
  for (const text of urls) {
    const url = new URL(text);
    hosts.add(url.host.toLowerCase());
    origins.add(url.origin.toLowerCase());
  }
  return { hosts, origins };
}

/** A refusal as the API answers errors: JSON, never cached. */
function refusal(status: 403 | 421, code: string, field: string, reason: string): Response {
  return Response.json(apiError(code, `${field}: ${reason}`, field, [{ field, reason }]), {
    status,
    headers: { 'cache-control': 'no-store' },
  });
}

/**
 * The refusal of `request` when it does not name this server (see the module comment), else
 * `undefined`. Without a `Host` header (HTTP/1.0) the request's URL stands for it.
 */
export function loopbackRefusal(request: Request, allowed: AllowedAuthorities): Response | undefined {
  const host = (request.headers.get('host') ?? new URL(request.url).host).toLowerCase();
  if (!allowed.hosts.has(host)) {
    return refusal(421, 'misdirected_request', 'Host', 'this server answers only to its loopback address');
  }
  const origin = request.headers.get('origin');
  if (!SAFE_METHODS.has(request.method) && origin !== null && !allowed.origins.has(origin.toLowerCase())) {
    return refusal(
      403,
      'forbidden_origin',
      'Origin',
      'requests that change something must come from this server',
    );
  }
  return undefined;
}

/** `fetch` behind {@link loopbackRefusal}; `allowed` is read per request (the port is known after listen). */
export function withLoopbackGuard(fetch: FetchHandler, allowed: () => AllowedAuthorities): FetchHandler {
  return (request, env) => loopbackRefusal(request, allowed()) ?? fetch(request, env);
}
