import { PbsExportError } from '../errors.ts';

/**
 * A run stopped through its `AbortSignal` (Ctrl-C, SIGTERM) before it finished. What it had
 * staged and its scratch folder are removed before this is thrown; `cause` is the signal's reason.
 */
export class RunAbortedError extends PbsExportError {
  constructor(options?: { cause?: unknown }) {
    super('run_aborted', 'the run was stopped before it finished: nothing was published', options);
  }
}
