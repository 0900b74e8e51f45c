#!/usr/bin/env -S npx tsx
/** Standalone launcher of the Portfolio Balance Service simulator: `npm run simulator -- --help`. */
import { readFile } from 'node:fs/promises';
import { banner, parseCliArgs, USAGE } from '../lib/simulator/cli.ts';
import { CliUsageError } from '../lib/simulator/errors.ts';
import { type PastEdit, startSimulator } from '../lib/simulator/index.ts';

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
  const pastEdits = parsed.editsFile === undefined ? [] : await readEdits(parsed.editsFile);
  const sim = await startSimulator({ ...parsed.options, pastEdits, requestLogLimit: 10_000 });
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

/** The `--edits` file: a JSON array of past edits (checked by the simulator as it starts). */
async function readEdits(file: string): Promise<PastEdit[]> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown;
  if (!Array.isArray(parsed))
    throw new CliUsageError('--edits', `--edits ${file}: expected a JSON array of edits`);
  return parsed as PastEdit[];
}

main().catch((error: unknown) => {
  process.stderr.write(`simulator failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
