import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Options of a {@link HashingStream}. */
export interface HashingOptions extends Omit<TransformOptions, 'transform' | 'flush' | 'objectMode'> {
  /** Also compute the MD5 (what S3 reports as the ETag of a single-part object). */
  md5?: boolean;
}

/**
 * A pass-through stream that counts the bytes flowing through it and computes their SHA-256
 * (and, when asked, their MD5). Strings written to it are encoded as UTF-8 before hashing.
 */
export class HashingStream extends Transform {
  readonly #hash: Hash = createHash('sha256');
  readonly #md5Hash: Hash | undefined;
  #bytes = 0;
  #sha256: string | undefined;
  #md5: string | undefined;

  constructor(options: HashingOptions = {}) {
    const { md5, ...rest } = options;
    super({ ...rest, decodeStrings: true });
    this.#md5Hash = md5 === true ? createHash('md5') : undefined;
  }

  /** Bytes passed through so far. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * Lowercase hex SHA-256 of everything passed through.
   *
   * @throws Error if the stream has not finished yet.
   */
  get sha256(): string {
    if (this.#sha256 === undefined) throw new Error('sha256 is known only after the stream has finished');
    return this.#sha256;
  }

  /**
   * Lowercase hex MD5 of everything passed through.
   *
   * @throws Error if the stream has not finished yet or was made without `md5: true`.
   */
  get md5(): string {
    if (this.#md5 === undefined)
      throw new Error('md5 is known only after the stream has finished, if asked for');
    return this.#md5;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#hash.update(chunk);
    this.#md5Hash?.update(chunk);
    this.#bytes += chunk.byteLength;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.#sha256 = this.#hash.digest('hex');
    this.#md5 = this.#md5Hash?.digest('hex');
    callback();
  }
}

/** Size and lowercase hex SHA-256 of some bytes. */
export interface Digest {
  bytes: number;
  sha256: string;
}

/**
 * A stream into `file` that hashes what passes through it, so a file's size and SHA-256 need not
 * be read back. Write to `stream` and end it; `done` resolves with the digest once every byte is
 * in the file, and rejects (both streams destroyed) when either fails or `stream` is destroyed.
 */
export function hashedFile(file: string): { stream: HashingStream; done: Promise<Digest> } {
  const stream = new HashingStream();
  const done = pipeline(stream, createWriteStream(file)).then(() => ({
    bytes: stream.bytes,
    sha256: stream.sha256,
  }));
  // The writer's own promise carries the failure; this one may be awaited later or not at all.
  done.catch(() => {});
  return { stream, done };
}

/** Size and SHA-256 of what an async iterable of byte chunks yields (a file, an object's body). */
export async function digestOf(chunks: AsyncIterable<Uint8Array | string>): Promise<Digest> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of chunks) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    hash.update(buffer);
    bytes += buffer.byteLength;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Size and SHA-256 of the file at `path`, read from the disk. */
export function digestFile(path: string): Promise<Digest> {
  return digestOf(createReadStream(path));
}
