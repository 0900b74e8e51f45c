/** A promise settled from outside, and how to settle it. */
export interface Settleable<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

/**
 * A promise settled from outside, whose rejection is never unhandled; the first settle wins.
 * Shared by the export's fetch (a shard's result, awaited in plan order) and the Lambda finish's
 * part downloads.
 */
export function settleable<T>(): Settleable<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
