import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * Lines of text kept in memory, packed: they are gathered into chunks of about `chunkChars`
 * characters, and each full chunk is deflated. A gains feed without a spool folder (the render
 * of a snapshot, the engine alone) keeps every disposal of its period twice (rounded and exact),
 * and a busy month of a dense history has tens of thousands: about 35 MB of JSON text at 1M
 * transactions, which deflate (level 1, a few ms per MB) keeps in a third or less.
 */
export interface PackedLines {
  /** Adds one line per text; a text must hold no line break (JSON.stringify's texts hold none). */
  add(texts: readonly string[]): void;
  /** Every text, in the order added (the same characters); may be read more than once. */
  texts(): Generator<string>;
}

/** Characters gathered before a chunk is deflated: enough for deflate's window to find repeats. */
const CHUNK_CHARS = 256 * 1024;

/** Creates an empty {@link PackedLines}. */
export function createPackedLines(chunkChars = CHUNK_CHARS): PackedLines {
  const chunks: Buffer[] = [];
  let open: string[] = [];
  let openChars = 0;
  return {
    add(texts) {
      for (const text of texts) {
        open.push(text);
        openChars += text.length + 1;
      }
      if (open.length === 0 || openChars < chunkChars) return;
      // UTF-8 both ways: JSON.stringify escapes lone surrogates, so every text comes back as it was.
      chunks.push(deflateRawSync(open.join('\n'), { level: 1 }));
      open = [];
      openChars = 0;
    },
    *texts() {
      for (const chunk of chunks) yield* inflateRawSync(chunk).toString('utf8').split('\n');
      yield* [...open];
    },
  };
}
