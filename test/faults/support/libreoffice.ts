/**
 * Headless LibreOffice for the fault tests, as in `test/interop/*.interop.ts`: converts files to
 * CSV with a private user profile and reads the result back.
 */
import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse } from 'csv-parse/sync';

/**
 * How long one conversion may take. A LibreOffice start on a loaded machine (and the first one,
 * which creates the profile) can take well over a minute: the limit is there to end a hung
 * office, not to measure one. Tests that convert set their own timeout above it.
 */
export const SOFFICE_TIMEOUT_MS = 300_000;

/**
 * Runs `soffice` with `args` in its own process group and resolves once it exits 0. On the
 * deadline the whole group is killed: `soffice` is a script that starts `oosplash` and
 * `soffice.bin`, and a `soffice.bin` left behind would hold the profile, failing the next run on it.
 */
export async function runSoffice(args: readonly string[], timeoutMs = SOFFICE_TIMEOUT_MS): Promise<void> {
  const child = spawn('soffice', args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-(child.pid as number), 'SIGKILL');
    } catch {
      // The group is gone already.
    }
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, timeoutMs);
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (c, s) => resolve([c, s]));
  }).finally(() => clearTimeout(deadline));
  if (code === 0) return;
  killGroup();
  const why = timedOut ? `timed out after ${timeoutMs} ms` : `exited with ${code ?? signal}`;
  throw new Error(`soffice ${why}: ${args.join(' ')}\n${output}`);
}

/**
 * CSV export filter: comma, double quote, UTF-8, raw values (not as shown), every sheet of a
 * workbook into its own file (`<name>-<Sheet>.csv`, token 12 = -1).
 */
export const CSV_EXPORT_ALL_SHEETS =
  'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,-1';

/** CSV import filter: comma, double quote, UTF-8, from line 1, the first `columns` columns as text. */
export function csvImportAsText(columns: number): string {
  const formats = Array.from({ length: columns }, (_, i) => `${i + 1}/2`).join('/');
  return `CSV:44,34,76,1,${formats}`;
}

/** CSV export filter of one sheet: comma, double quote, UTF-8, raw values (not as shown). */
export const CSV_EXPORT = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false';

/**
 * Converts `files` to CSV in `outdir` with one `soffice --headless --convert-to` run and returns
 * the CSV files written, by name. `profileDir` holds LibreOffice's user profile (created on first
 * use); `options.import` is the input filter of every file (e.g. {@link csvImportAsText}).
 */
export async function convertToCsv(
  files: string | readonly string[],
  outdir: string,
  profileDir: string,
  options: { export?: string; import?: string } = {},
): Promise<Map<string, string>> {
  await mkdir(outdir, { recursive: true });
  await runSoffice([
    `-env:UserInstallation=${pathToFileURL(profileDir).href}`,
    '--headless',
    ...(options.import ? [`--infilter=${options.import}`] : []),
    '--convert-to',
    options.export ?? CSV_EXPORT_ALL_SHEETS,
    '--outdir',
    outdir,
    ...(typeof files === 'string' ? [files] : files),
  ]);
  const written = new Map<string, string>();
  for (const name of await readdir(outdir)) {
    if (name.endsWith('.csv')) written.set(name, await readFile(join(outdir, name), 'utf8'));
  }
  return written;
}

/** The records of a CSV text (a leading BOM dropped), as arrays of fields. */
export function csvRecords(text: string): string[][] {
  return parse(text.replace(/^\ufeff/, ''), { relax_column_count: true }) as string[][];
}
