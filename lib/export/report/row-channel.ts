import type { Row, TableSource, TableSpec } from '../../domain/index.ts';

/**
 * A table whose rows a producer pushes while one writer reads them (`rows()`, once). Rows come
 * out in push order. `push` returns a promise only when `highWater` rows are waiting: the
 * producer awaits it, so memory stays bounded by the slower side.
 */
export interface RowChannel extends TableSource {
  push(row: Row): Promise<void> | undefined;
  /** No more rows: the reader finishes once it has read what is waiting. */
  end(): void;
  /** The reader throws `error` at its next read; later pushes are dropped, a waiting producer resumes. */
  fail(error: Error): void;
}

/** A {@link RowChannel} for `spec`; `highWater` rows may wait before the producer is paused. */
export function createRowChannel(spec: TableSpec, highWater = 1024): RowChannel {
  let waiting: Row[] = [];
  let head = 0;
  let ended = false;
  let failure: Error | null = null;
  let wakeReader: (() => void) | null = null;
  let producerPaused: { promise: Promise<void>; resume: () => void } | null = null;
  let read = false;

  const resumeProducer = () => {
    producerPaused?.resume();
    producerPaused = null;
  };
  const wake = () => {
    wakeReader?.();
    wakeReader = null;
  };

  return {
    spec,
    push(row) {
      if (failure !== null || ended) return undefined;
      waiting.push(row);
      wake();
      if (waiting.length - head < highWater) return undefined;
      if (producerPaused === null) {
        let resume = () => {};
        const promise = new Promise<void>((resolve) => {
          resume = resolve;
        });
        producerPaused = { promise, resume };
      }
      return producerPaused.promise;
    },
    end() {
      ended = true;
      wake();
    },
    fail(error) {
      failure ??= error;
      waiting = [];
      head = 0;
      resumeProducer();
      wake();
    },
    rows() {
      if (read) throw new Error(`rows of the live table ${spec.name} can be read once only`);
      read = true;
      return {
        async *[Symbol.asyncIterator]() {
          for (;;) {
            if (failure !== null) throw failure;
            if (head < waiting.length) {
              const row = waiting[head] as Row;
              head += 1;
              if (head === waiting.length) {
                waiting = [];
                head = 0;
              } else if (head >= highWater) {
                // Rows already read are dropped, or a reader that never quite catches up keeps them all.
                waiting = waiting.slice(head);
                head = 0;
              }
              if (producerPaused !== null && waiting.length - head <= highWater / 2) resumeProducer();
              yield row;
              continue;
            }
            if (ended) return;
            await new Promise<void>((resolve) => {
              wakeReader = resolve;
            });
          }
        },
      };
    },
  };
}
