/**
 * The CLI's `--rates [ecb:|hmrc:]FILE` (repeatable): the published rates files read from disk into
 * one table, and the request's `gains.rates` filled in with their source, names and SHA-256s.
 */
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { ValidationError } from '../errors.ts';
import {
  loadRates,
  MAX_RATES_FILE_BYTES,
  type RateSource,
  RatesFileError,
  type RateTable,
} from '../fx/index.ts';

/** One `--rates` value: a file, with its source when the value said it (`hmrc:rates.xml`). */
export interface RatesFlag {
  path: string;
  source?: RateSource;
}

/** The `--rates` values, each `FILE`, `ecb:FILE` or `hmrc:FILE`. */
export function parseRatesFlags(values: readonly string[]): RatesFlag[] {
  return values.map((value) => {
    const match = /^(ecb|hmrc):(.+)$/.exec(value);
    if (match) return { path: match[2] as string, source: match[1] as RateSource };
    if (value.trim() === '')
      throw new ValidationError(
        '--rates',
        'expected a rates file, e.g. --rates hmrc:monthly_xml_2024-05.xml',
      );
    return { path: value };
  });
}

/**
 * Reads and parses the files of `--rates` into one table. A file that cannot be read or parsed,
 * two files of one name, or files of two sources are refused naming `--rates` and the file.
 */
export async function readRates(flags: readonly RatesFlag[]): Promise<RateTable> {
  const names = new Set<string>();
  const files = await Promise.all(
    flags.map(async (flag) => {
      const name = basename(flag.path);
      if (names.has(name))
        throw new ValidationError(
          '--rates',
          `two files are named ${name}: give each file once, under distinct names`,
        );
      names.add(name);
      const bytes = await readAtMost(flag.path, MAX_RATES_FILE_BYTES);
      return { name, bytes, ...(flag.source ? { source: flag.source } : {}) };
    }),
  );
  try {
    return loadRates(files);
  } catch (error) {
    if (error instanceof RatesFileError) throw new ValidationError('--rates', error.reason, { cause: error });
    throw error;
  }
}

/**
 * The bytes of `path`, or a {@link ValidationError} of `--rates` when it cannot be read or holds
 * more than `maxBytes`: read no further than that, so a huge file (or `/dev/zero`) is refused
 * without being read into memory.
 */
async function readAtMost(path: string, maxBytes: number): Promise<Uint8Array> {
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    const handle = await open(path, 'r');
    try {
      for (;;) {
        const { buffer, bytesRead } = await handle.read({ buffer: Buffer.alloc(1024 * 1024) });
        if (bytesRead === 0) return Buffer.concat(chunks, total);
        total += bytesRead;
        if (total > maxBytes) break;
        chunks.push(buffer.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new ValidationError('--rates', `cannot read ${path}`, { cause: error });
  }
  throw new ValidationError(
    '--rates',
    `rates file ${basename(path)}: holds more than ${maxBytes / (1024 * 1024)} MiB, the most a rates file may hold: no published rates file is that large`,
  );
}

/**
 * `request` (CLI input, not yet validated) with `gains.rates` naming the table's source and files,
 * so the snapshot and the manifest record which files converted the values. Refused without the
 * gains report, the only one converted.
 */
export function withRates(request: Record<string, unknown>, table: RateTable): Record<string, unknown> {
  const reports = request.reports;
  if (!Array.isArray(reports) || !reports.includes('gains')) {
    throw new ValidationError('--rates', 'converts the values of the gains reports: add --report gains');
  }
  const gains = (request.gains as Record<string, unknown> | undefined) ?? {};
  const files = Object.fromEntries(table.files.map((file) => [file.name, file.sha256]));
  return { ...request, gains: { ...gains, rates: { source: table.source, files } } };
}
