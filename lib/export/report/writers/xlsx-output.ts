import { Writable } from 'node:stream';

/**
 * Zip bytes the worker may have posted to the main thread before they are written there. The
 * main thread acknowledges a chunk once its output can take more, but it answers only between its
 * own tasks (a window of the snapshot assembled, a batch of cells worked out): with one chunk at a
 * time, the worker waited for it after every ~16 KiB (3.0 of 7.7 s at 100k transactions).
 */
export const OUTPUT_WINDOW_BYTES = 128 * 1024;

/**
 * The worker's end of the workbook's output: each chunk written is posted (copied, its buffer
 * transferred) and the next one taken at once while fewer than `window` bytes await the main
 * thread's acknowledgement ({@link PostedOutput.written}); past that it waits, and the chunks
 * written meanwhile go out together in one message.
 */
export class PostedOutput extends Writable {
  /** Sizes of the posted chunks not yet acknowledged, oldest first; -1 stands for the end. */
  private readonly posted: number[] = [];
  /** Bytes posted and not yet acknowledged (the pacer counts them as buffered). */
  unacknowledgedBytes = 0;
  private blocked: (() => void) | null = null;
  private ended: (() => void) | null = null;

  constructor(
    private readonly post: (message: { type: 'chunk'; data: Uint8Array } | { type: 'end' }) => void,
    private readonly window = OUTPUT_WINDOW_BYTES,
  ) {
    super({ highWaterMark: 64 * 1024 });
  }

  override _writev(chunks: { chunk: Buffer }[], callback: (error?: Error | null) => void): void {
    // One copy: the chunks may be views of buffers other chunks share, which must not be moved away.
    const data = new Uint8Array(chunks.reduce((sum, { chunk }) => sum + chunk.length, 0));
    let at = 0;
    for (const { chunk } of chunks) {
      data.set(chunk, at);
      at += chunk.length;
    }
    this.posted.push(data.length);
    this.unacknowledgedBytes += data.length;
    this.post({ type: 'chunk', data });
    if (this.unacknowledgedBytes < this.window) callback();
    else this.blocked = () => callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.posted.push(-1);
    this.ended = () => callback();
    this.post({ type: 'end' });
  }

  /** The main thread wrote the oldest unacknowledged chunk (or, last, the end) into its output. */
  written(): void {
    const size = this.posted.shift();
    if (size === undefined) return;
    if (size < 0) {
      this.ended?.();
      this.ended = null;
      return;
    }
    this.unacknowledgedBytes -= size;
    if (this.blocked !== null && this.unacknowledgedBytes < this.window) {
      const resume = this.blocked;
      this.blocked = null;
      resume();
    }
  }
}
