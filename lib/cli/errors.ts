import { PbsExportError } from '../errors.ts';

/** The signals that stop a run, each with its exit code (128 + the signal's number, as shells report). */
export const STOP_SIGNALS = { SIGINT: 130, SIGTERM: 143 } as const;

/** A signal that stops a run. */
export type StopSignal = keyof typeof STOP_SIGNALS;

/** The reason a run's `AbortSignal` carries when the process received SIGINT or SIGTERM. */
export class StopSignalReceived extends PbsExportError {
  readonly signal: StopSignal;

  constructor(signal: StopSignal) {
    super('stop_signal', `stopped by ${signal}`);
    this.signal = signal;
  }
}
