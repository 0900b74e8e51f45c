/**
 * FOR LOCAL USE ONLY: the export state machine synthesized from `infra/` in a child process
 * (`synthesize-child.ts`, run with tsx), so that `npm run serve` answers at once while the CDK
 * synthesizes (tens of seconds of CPU); exports asked for meanwhile wait for it.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ExportMachine } from '../../infra/definitions.ts';
import { MachineSynthesisError } from './errors.ts';

/** A synthesis under way in a child process. */
export interface MachineSynthesis {
  /** The synthesized machine; rejects with {@link MachineSynthesisError}. */
  machine: Promise<ExportMachine>;
  /** Stops the child if it is still running (the promise then rejects). */
  cancel(): void;
}

/** Last characters of the child's stderr a failure quotes. */
const STDERR_TAIL = 2000;

/** Starts synthesizing the export state machine with `overrides` in a child process. */
export function synthesizeInChild(overrides: Record<string, unknown>): MachineSynthesis {
  const loader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const script = fileURLToPath(new URL('./synthesize-child.ts', import.meta.url));
  const child = spawn(process.execPath, ['--import', loader, script, JSON.stringify(overrides)], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-STDERR_TAIL);
  });
  const machine = new Promise<ExportMachine>((resolve, reject) => {
    let result: ExportMachine | undefined;
    child.once('message', (message) => {
      result = message as ExportMachine;
    });
    child.once('error', (error) =>
      reject(new MachineSynthesisError('could not be started', { cause: error })),
    );
    child.once('exit', (code, signal) => {
      if (result !== undefined) resolve(result);
      else
        reject(
          new MachineSynthesisError(
            `ended (${signal ?? `exit code ${code}`}) without a machine: ${stderr.trim()}`,
          ),
        );
    });
  });
  // Nobody may be waiting yet: a failure is reported where the machine is awaited.
  machine.catch(() => {});
  return {
    machine,
    cancel: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill();
    },
  };
}
