#!/usr/bin/env -S npx tsx
/** Standalone launcher of the Portfolio Balance Service simulator: `npm run simulator -- --help`. */
import { constants } from 'node:os';
import {
  balanceFaultError,
  banner,
  CliUsageError,
  editsError,
  parseCliArgs,
  readEditsFile,
  startSimulator,
  USAGE,
} from '../lib/simulator/index.ts';

type StopSignal = 'SIGINT' | 'SIGTERM';

async function main(): Promise<void> {
  let parsed: ReturnType<typeof parseCliArgs>;
  try {
    parsed = parseCliArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof CliUsageError) {
      process.stderr.write(`error: ${error.message}\n\n${USAGE}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (parsed.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  // Stopped as a shell reports a signal's end (130 for Ctrl-C, 143 for SIGTERM), with a line that
  // says so. The listeners are on before anything is printed (a user may press Ctrl-C as soon as
  // the banner shows) and stay on, so a repeated signal cannot end the process before the line; a
  // signal during the start stops the simulator once it is started.
  let sim: Awaited<ReturnType<typeof startSimulator>> | undefined;
  let held: StopSignal | undefined;
  let stopping = false;
  const stop = (signal: StopSignal): void => {
    if (sim === undefined) {
      held ??= signal;
      return;
    }
    if (stopping) return;
    stopping = true;
    const code = 128 + constants.signals[signal];
    sim.close().then(
      () => {
        process.stderr.write(`simulator stopped by ${signal}\n`);
        process.exit(code);
      },
      (error: unknown) => {
        process.stderr.write(
          `simulator stopped by ${signal}; closing failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        process.exit(code);
      },
    );
  };
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => stop(signal));
  try {
    const pastEdits = parsed.editsFile === undefined ? [] : await readEditsFile(parsed.editsFile);
    sim = await startSimulator({ ...parsed.options, pastEdits, requestLogLimit: 10_000 });
  } catch (error) {
    // A bad edits file names the flag, the file and the edit's field, and starts nothing.
    const refused =
      error instanceof CliUsageError
        ? error
        : (editsError(error, parsed.editsFile) ?? balanceFaultError(error));
    if (refused === undefined) throw error;
    process.stderr.write(`error: ${refused.message}\n`);
    process.exit(2);
  }
  if (held !== undefined) {
    stop(held);
    return;
  }
  process.stdout.write(`${banner(sim)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
