import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FaultKind } from './faults.ts';

/** A response decided by the simulator, before any delivery fault. */
export interface Reply {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** A non-JSON body such as a proxy in front of the service might send. */
const MALFORMED_BODY = '<html><body><h1>502 Bad Gateway</h1></body></html>';

/**
 * Writes `reply`, damaged as the delivery fault asks: `truncatedBody` sends a complete HTTP
 * message whose JSON is cut in half; `malformedBody` sends a non-JSON body; `connectionReset`
 * announces the full length, sends half and destroys the socket; `stalledBody` sends half and
 * the rest only after `stallMs` (scheduled with `later`, so the server can cancel it on close).
 */
export function writeReply(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  headers: Record<string, string>,
  fault: FaultKind | null,
  stall: { stallMs: number; later: (ms: number, fn: () => void) => void },
): void {
  const all = { ...headers, ...reply.headers };
  const half = reply.body.slice(0, Math.max(1, Math.floor(reply.body.length / 2)));
  const send = (body: string): void => {
    res.writeHead(reply.status, { ...all, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (fault === 'truncatedBody') {
    send(half);
  } else if (fault === 'malformedBody') {
    send(MALFORMED_BODY);
  } else if (fault !== 'connectionReset' && fault !== 'stalledBody') {
    send(reply.body);
  } else {
    writeCut(req, res, reply, all, half, fault, stall);
  }
}

function writeCut(
  req: IncomingMessage,
  res: ServerResponse,
  reply: Reply,
  all: Record<string, string>,
  half: string,
  fault: 'connectionReset' | 'stalledBody',
  stall: { stallMs: number; later: (ms: number, fn: () => void) => void },
): void {
  res.writeHead(reply.status, { ...all, 'content-length': Buffer.byteLength(reply.body) });
  if (fault === 'connectionReset') {
    res.write(half, () => req.socket.destroy());
    return;
  }
  res.write(half);
  stall.later(stall.stallMs, () => res.end(reply.body.slice(half.length)));
}
