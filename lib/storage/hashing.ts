import { createHash, type Hash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { Transform, type TransformCallback, type TransformOptions } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Options of a {@link HashingStream}. */
export interface HashingOptions extends Omit<TransformOptions, 'transform' | 'flush' | 'objectMode'> {
  /** Also compute the MD5 (what S3 reports as the ETag of a single-part object). */
  md5?: boolean;
  /**
   * Also compute the ETag S3 gives a multipart upload of parts of this many bytes (the last one
   * shorter): see {@link HashingStream.multipartEtag}.
   */
  partSize?: number;
}

/**
 * A pass-through stream that counts the bytes flowing through it and computes their SHA-256
 * (and, when asked, their MD5). Strings written to it are encoded as UTF-8 before hashing.
 */
export class HashingStream extends Transform {
  readonly #hash: Hash = createHash('sha256');
  readonly #md5Hash: Hash | undefined;
  readonly #partSize: number | undefined;
  /** MD5 of the part being passed through, and the digests of the parts before it. */
  #partHash: Hash | undefined;
  #partBytes = 0;
  readonly #partDigests: Buffer[] = [];
  #bytes = 0;
  #sha256: string | undefined;
  #md5: string | undefined;

  constructor(options: HashingOptions = {}) {
    const { md5, partSize, ...rest } = options;
    super({ ...rest, decodeStrings: true });
    this.#md5Hash = md5 === true ? createHash('md5') : undefined;
    this.#partSize = partSize;
  }

  /**
   * The ETag S3 gives (unencrypted or SSE-S3) a multipart upload of what passed through, in parts
   * of `partSize` bytes: the MD5 of the parts' MD5s, then `-` and the number of parts, as an
   * upload of lib-storage's `Upload` makes them (every part `partSize` bytes but the last).
   * Undefined when the content fits one part (`Upload` then sends one PutObject), or without
   * `partSize`.
   *
   * @throws Error if the stream has not finished yet.
   */
  get multipartEtag(): string | undefined {
    if (this.#sha256 === undefined) throw new Error('the ETag is known only after the stream has finished');
    if (this.#partDigests.length < 2) return undefined;
    const digest = createHash('md5').update(Buffer.concat(this.#partDigests)).digest('hex');
    return `${digest}-${this.#partDigests.length}`;
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
    if (this.#partSize !== undefined) this.#hashParts(chunk, this.#partSize);
    callback(null, chunk);
  }

  /** Feeds `chunk` to the parts' MD5s, closing a part at each `partSize` bytes. */
  #hashParts(chunk: Buffer, partSize: number): void {
    let offset = 0;
    while (offset < chunk.byteLength) {
      this.#partHash ??= createHash('md5');
      const take = Math.min(partSize - this.#partBytes, chunk.byteLength - offset);
      this.#partHash.update(chunk.subarray(offset, offset + take));
      this.#partBytes += take;
      offset += take;
      if (this.#partBytes === partSize) {
        this.#partDigests.push(this.#partHash.digest());
        this.#partHash = undefined;
        this.#partBytes = 0;
      }
    }
  }

  override _flush(callback: TransformCallback): void {
    if (this.#partHash !== undefined) this.#partDigests.push(this.#partHash.digest());
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
