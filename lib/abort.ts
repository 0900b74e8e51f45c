/**
 * Waiting on work that may not listen to an `AbortSignal` itself: an injected `fetch` or a body
 * stream that ignores it, a client call under way. Shared by the service client's timeout and an
 * export's stop.
 */

/**
 * What `start` resolves to, unless `signal` fires first: then `onAbort` runs and it rejects with
 * the signal's reason at once, the work left to settle on its own (its failure observed). With
 * `signal` already fired, `start` is not called.
 */
export function untilAborted<T>(
  start: () => Promise<T>,
  signal: AbortSignal,
  onAbort?: () => void,
): Promise<T> {
  if (signal.aborted) {
    onAbort?.();
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const abort = () => {
      onAbort?.();
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
    start().then(
      (value) => {
        signal.removeEventListener('abort', abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', abort);
        reject(error);
      },
    );
  });
}
