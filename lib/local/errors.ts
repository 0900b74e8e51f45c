/** Typed errors of the local stack (`npm run serve`). */
import { PbsExportError } from '../errors.ts';

/** The export state machine could not be synthesized from `infra/` (in its child process). */
export class MachineSynthesisError extends PbsExportError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('machine_synthesis_failed', `synthesizing the export state machine: ${reason}`, options);
  }
}
