#!/usr/bin/env -S npx tsx
/** Standalone launcher of the Portfolio Balance Service simulator: `npm run simulator -- --help`. */
import {
  balanceFaultError,
  banner,
  editsError,
  parseCliArgs,
  readEditsFile,
  USAGE,
} from '../lib/simulator/cli.ts';
import { CliUsageError } from '../lib/simulator/errors.ts';
import { startSimulator } from '../lib/simulator/index.ts';

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
  let sim: Awaited<ReturnType<typeof startSimulator>>;
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
  process.stdout.write(`${banner(sim)}\n`);
  const stop = (): void => {
    sim.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
