/**
 * The CLI against a service that echoes the credentials back in its error bodies, in encodings a
 * plain search would miss, or cut short. Whatever it echoes, stderr must hold no run of eight
 * characters of the echo's encoded credentials (their boundaries with the text around them may
 * show a character or two), and no run of four characters of a credential itself.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { type HostileServer, startHostileServer } from '../support/hostile-server.ts';

const BOUNDS = '{"earliestDate":"2025-03-01T00:00:00.000Z","latestDate":"2025-03-31T00:00:00.000Z"}';
const KEY = 'pk/echo&Kq7vR2 Wm9';
const SECRET = 'Zq8vLr2Xw9/KpT4&mN7bHc3Jd';

let dir: string;
let server: HostileServer | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-hostile-echo-'));
});
afterEach(async () => {
  await server?.close();
  server = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** The CLI's stderr against a server that answers every request 400 with `body` as text. */
async function stderrFor(body: string): Promise<string> {
  server = await startHostileServer({ dateBounds: BOUNDS, transactions: [] }, (_request, response) => {
    response.writeHead(400, { 'content-type': 'text/plain' });
    response.end(body);
    return true;
  });
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    env: { PBS_BASE_URL: server.url, PBS_API_KEY: KEY, PBS_API_SECRET: SECRET },
    now: () => new Date('2026-11-24T10:00:00.000Z'),
  };
  const code = await main(['run', '--profile', 'acme', '--period', '2025-03', '--out', dir], io);
  expect(code).toBe(1);
  return err.join('');
}

/** Runs of `length` characters of `text`. */
function runs(text: string, length: number): string[] {
  return Array.from({ length: text.length - length + 1 }, (_, at) => text.slice(at, at + length));
}

const utf16Escapes = (text: string, upper: boolean) =>
  Array.from({ length: text.length }, (_, at) => {
    const hex = text.charCodeAt(at).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  }).join('');

const ECHOES: [name: string, encode: (text: string) => string][] = [
  ['JSON with \\/ for /', (text) => JSON.stringify(text).slice(1, -1).replace(/\//g, '\\/')],
  ['JSON with \\u0026 for &', (text) => JSON.stringify(text).slice(1, -1).replace(/&/g, '\\u0026')],
  ['JSON, every character \\uXXXX in upper case', (text) => utf16Escapes(text, true)],
  [
    'percent-encoding of every byte, upper-case hex',
    (text) =>
      [...Buffer.from(text, 'utf8')]
        .map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`)
        .join(''),
  ],
  ['hex, upper case', (text) => Buffer.from(text, 'utf8').toString('hex').toUpperCase()],
];

describe('pbs-export run against a service that echoes the credentials encoded', () => {
  it.each(ECHOES)('shows no part of them echoed as %s', async (_name, encode) => {
    const stderr = await stderrFor(`denied: key=${encode(KEY)} secret=${encode(SECRET)}`);

    expect(stderr).toContain('[redacted]');
    const shown = [...runs(encode(KEY), 8), ...runs(encode(SECRET), 8), ...runs(SECRET, 4), ...runs(KEY, 4)];
    expect(shown.filter((run) => stderr.includes(run))).toEqual([]);
  });

  it.each([
    ['base64', 'base64'],
    ['base64url', 'base64url'],
  ] as const)('shows no part of them echoed as %s of key:secret', async (_name, encoding) => {
    const echoed = Buffer.from(`${KEY}:${SECRET}`, 'utf8').toString(encoding);

    const stderr = await stderrFor(`denied: authorization=Basic ${echoed}`);

    expect(stderr).toContain('[redacted]');
    expect(runs(echoed, 8).filter((run) => stderr.includes(run))).toEqual([]);
  });
});

describe('pbs-export run against a service whose non-JSON error body is long', () => {
  it('shows no part of a secret that straddles the point where the body is cut', async () => {
    // The body is shown up to its 200th character; the secret starts at its 178th.
    const stderr = await stderrFor(`${'x'.repeat(178)}${SECRET} and then more text`);

    expect(stderr).toMatch(/x{178}\[redacted\]/);
    expect(runs(SECRET, 4).filter((run) => stderr.includes(run))).toEqual([]);
  });
});
