/**
 * An HTTP proxy on loopback in front of s3rver that forwards every request as it came (headers
 * included: s3rver does not verify SigV4) except those `hold` picks, which it never answers. A
 * CLI run given the proxy as its endpoint can so be stopped at an exact step of its S3 traffic,
 * e.g. with its manifest's copy into place sent and not done, and killed there.
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A running proxy. */
export interface HoldingProxy {
  /** Base URL to give a client as its S3 endpoint. */
  endpoint: string;
  /** Resolves with the path of the first request held, once it arrives. */
  held: Promise<string>;
  /** Drops every connection (held requests included) and stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy to `target` (e.g. s3rver's endpoint) holding the requests `hold` returns true for. */
export async function startHoldingProxy(
  target: string,
  hold: (incoming: IncomingMessage) => boolean,
): Promise<HoldingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let resolveHeld!: (path: string) => void;
  const held = new Promise<string>((resolve) => {
    resolveHeld = resolve;
  });
  const server = createServer((incoming, outgoing) => {
    if (hold(incoming)) {
      resolveHeld(incoming.url ?? '');
      return;
    }
    const forward = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: incoming.method,
        path: incoming.url,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', (error) => outgoing.destroy(error));
    incoming.pipe(forward);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    held,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** True for a CopyObject (a PUT with `x-amz-copy-source`) whose destination key ends with `/{name}`. */
export function isCopyInto(incoming: IncomingMessage, name: string): boolean {
  const path = new URL(incoming.url ?? '/', 'http://proxy').pathname;
  return (
    incoming.method === 'PUT' &&
    incoming.headers['x-amz-copy-source'] !== undefined &&
    decodeURIComponent(path).endsWith(`/${name}`)
  );
}
