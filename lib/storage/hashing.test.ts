import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { HashingStream, hashedFile } from './hashing.ts';

async function passThrough(chunks: (string | Buffer)[]): Promise<{ hasher: HashingStream; out: Buffer }> {
  const hasher = new HashingStream();
  const received: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      received.push(chunk);
      callback();
    },
  });
  await pipeline(Readable.from(chunks), hasher, sink);
  return { hasher, out: Buffer.concat(received) };
}

describe('HashingStream', () => {
  it('returns the bytes unchanged', async () => {
    const { out } = await passThrough([Buffer.from('abc'), Buffer.from('def')]);

    expect(out.toString()).toBe('abcdef');
  });

  it('returns the SHA-256 and byte count of what passed through', async () => {
    const { hasher } = await passThrough(['Grüße,', Buffer.from([0, 255])]);

    const expected = Buffer.concat([Buffer.from('Grüße,', 'utf8'), Buffer.from([0, 255])]);
    expect(hasher.sha256).toBe(createHash('sha256').update(expected).digest('hex'));
    expect(hasher.bytes).toBe(expected.byteLength);
  });

  it('returns the SHA-256 of no bytes for an empty stream', async () => {
    const { hasher } = await passThrough([]);

    expect(hasher.sha256).toBe(createHash('sha256').digest('hex'));
    expect(hasher.bytes).toBe(0);
  });

  it('refuses to report a SHA-256 before the stream has finished', () => {
    const hasher = new HashingStream();
    hasher.write('abc');

    expect(() => hasher.sha256).toThrow(/finished/);
  });
});

describe('HashingStream multipart ETag', () => {
  /** S3's multipart ETag of `parts`, computed on its own. */
  const etagOf = (parts: string[]) =>
    `${createHash('md5')
      .update(Buffer.concat(parts.map((part) => createHash('md5').update(part).digest())))
      .digest('hex')}-${parts.length}`;
  const hashed = async (chunks: string[], partSize: number) => {
    const hasher = new HashingStream({ partSize });
    await pipeline(
      Readable.from(chunks.map((chunk) => Buffer.from(chunk))),
      hasher,
      new Writable({ write: (_c, _e, cb) => cb() }),
    );
    return hasher.multipartEtag;
  };

  it('is the MD5 of the MD5s of parts of partSize bytes, however the bytes were chunked', async () => {
    expect(await hashed(['abcdefghij'], 4)).toBe(etagOf(['abcd', 'efgh', 'ij']));
    expect(await hashed(['ab', 'cdefg', 'h', 'ij'], 4)).toBe(etagOf(['abcd', 'efgh', 'ij']));
    expect(await hashed(['abcdefgh'], 4)).toBe(etagOf(['abcd', 'efgh']));
  });

  it('is undefined for content that fits one part (sent in one PutObject)', async () => {
    expect(await hashed(['abcd'], 4)).toBeUndefined();
    expect(await hashed([], 4)).toBeUndefined();
  });
});

describe('hashedFile', () => {
  it('resolves with the size and SHA-256 of the bytes that reached the file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hashed-file-'));
    try {
      const file = join(dir, 'out.txt');
      const { stream, done } = hashedFile(file);
      stream.write('héllo, ');
      stream.end(Buffer.from('world\n'));
      const digest = await done;
      const bytes = await readFile(file);
      expect(digest).toEqual({
        bytes: bytes.length,
        sha256: createHash('sha256').update(bytes).digest('hex'),
      });
      expect(bytes.toString('utf8')).toBe('héllo, world\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rejects when the stream is destroyed before it ends', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hashed-file-'));
    try {
      const { stream, done } = hashedFile(join(dir, 'out.txt'));
      stream.write('partial');
      stream.destroy(new Error('stopped'));
      await expect(done).rejects.toThrow('stopped');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
