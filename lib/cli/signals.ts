import { STOP_SIGNALS, type StopSignal, StopSignalReceived } from './errors.ts';

/** What {@link stopOnSignals} needs of the process (`process` fits). */
export interface SignalSource {
  on(signal: StopSignal, listener: () => void): unknown;
  off(signal: StopSignal, listener: () => void): unknown;
}

/** A signal aborted by SIGINT or SIGTERM, and the removal of the listeners. */
export interface StopOnSignals {
  signal: AbortSignal;
  dispose(): void;
}

/**
 * Turns the first SIGINT or SIGTERM into an abort of the returned signal (reason: a
 * `StopSignalReceived`), so the run stops and cleans up. A second one means "now": `exitNow` is
 * called at once with that signal's exit code; a staged set and scratch folder then stay for the
 * next run to remove, as after `kill -9`, and still nothing is at a final name.
 */
export function stopOnSignals(source: SignalSource, exitNow: (code: number) => void): StopOnSignals {
  const controller = new AbortController();
  const listeners = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((name) => {
    const listener = () => {
      if (controller.signal.aborted) exitNow(STOP_SIGNALS[name]);
      else controller.abort(new StopSignalReceived(name));
    };
    source.on(name, listener);
    return { name, listener };
  });
  return {
    signal: controller.signal,
    dispose() {
      for (const { name, listener } of listeners) source.off(name, listener);
    },
  };
}

/** The exit code of a run stopped through `signal`, or undefined when it was not stopped. */
export function stopExitCode(signal: AbortSignal | undefined): number | undefined {
  if (signal?.aborted !== true) return undefined;
  const reason: unknown = signal.reason;
  return reason instanceof StopSignalReceived ? STOP_SIGNALS[reason.signal] : STOP_SIGNALS.SIGINT;
}
