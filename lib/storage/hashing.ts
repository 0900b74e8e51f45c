import { createHash, type Hash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/**
 * A pass-through stream that counts the bytes flowing through it and computes their SHA-256.
 * Strings written to it are encoded as UTF-8 before hashing.
 */
export class HashingStream extends Transform {
  readonly #hash: Hash = createHash('sha256');
  #bytes = 0;
  #sha256: string | undefined;

  constructor(options?: Omit<TransformOptions, 'transform' | 'flush' | 'objectMode'>) {
    super({ ...options, decodeStrings: true });
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

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.#hash.update(chunk);
    this.#bytes += chunk.byteLength;
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    this.#sha256 = this.#hash.digest('hex');
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
