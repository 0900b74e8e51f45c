/**
 * An HTTP proxy on loopback in front of s3rver that damages the bodies of the uploads it picks
 * (PutObject, UploadPart) before forwarding them, and answers as the store then does: 200 with
 * the store's ETag of what it received. A store or proxy that corrupts quietly, for checking that
 * an export notices before its manifest vouches for the files. s3rver does not verify SigV4, so
 * a changed body goes through.
 */
import { createServer, type IncomingMessage, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How a picked body is damaged: one byte changed in the middle, or its second half dropped. */
export type Corruption = 'flip' | 'truncate';

/** Options of {@link startCorruptingProxy}. */
export interface CorruptingProxyOptions {
  /** Which uploads to damage (see {@link isUploadTo}). */
  pick: (incoming: IncomingMessage) => boolean;
  corruption: Corruption;
  /** Bodies to damage before forwarding every request unchanged (default 1). */
  times?: number;
}

/** A running proxy. */
export interface CorruptingProxy {
  /** Base URL to give a client as its S3 endpoint. */
  endpoint: string;
  /** Bodies damaged so far. */
  readonly corrupted: number;
  /** Drops every connection and stops the proxy. */
  close(): Promise<void>;
}

/** Starts a proxy to `target` (s3rver's endpoint) damaging the bodies `options.pick` picks. */
export async function startCorruptingProxy(
  target: string,
  options: CorruptingProxyOptions,
): Promise<CorruptingProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  const times = options.times ?? 1;
  let corrupted = 0;
  const server = createServer(async (incoming, outgoing) => {
    const damage = corrupted < times && options.pick(incoming);
    const headers = { ...incoming.headers };
    let body: Buffer | undefined;
    if (damage) {
      corrupted += 1;
      body = damaged(await readAll(incoming), options.corruption);
      headers['content-length'] = String(body.length);
    }
    const forward = request(
      { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forward.on('error', (error) => outgoing.destroy(error));
    if (body === undefined) incoming.pipe(forward);
    else forward.end(body);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    get corrupted() {
      return corrupted;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * True for an upload of content (a PutObject or an UploadPart, not a copy) whose key ends with
 * `suffix`; `part` picks only the UploadPart of that number.
 */
export function isUploadTo(incoming: IncomingMessage, suffix: string, part?: number): boolean {
  const url = new URL(incoming.url ?? '/', 'http://proxy');
  if (incoming.method !== 'PUT' || incoming.headers['x-amz-copy-source'] !== undefined) return false;
  if (!decodeURIComponent(url.pathname).endsWith(suffix)) return false;
  return part === undefined || url.searchParams.get('partNumber') === String(part);
}

function damaged(body: Buffer, corruption: Corruption): Buffer {
  if (corruption === 'truncate') return body.subarray(0, Math.floor(body.length / 2));
  const copy = Buffer.from(body);
  const at = Math.floor(copy.length / 2);
  copy[at] = (copy[at] ?? 0) ^ 0x20;
  return copy;
}

async function readAll(incoming: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of incoming) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
