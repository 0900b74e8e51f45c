/**
 * Exchange rates into the filing currency: the files the ECB and HMRC publish, parsed, merged into
 * one table and looked up by calendar day; amounts converted through the table's base. Pure: the
 * caller reads the files and hands over their bytes.
 */
import { createHash } from 'node:crypto';
import { isEcbCsv, isEcbXml, parseEcbCsv, parseEcbXml } from './ecb.ts';
import { RatesFileError } from './errors.ts';
import { isHmrcCsv, isHmrcXml, parseHmrcCsv, parseHmrcXml } from './hmrc.ts';
import {
  mergeRates,
  type ParsedRates,
  type RateSource,
  type RatesFileInfo,
  type RateTable,
} from './table.ts';
import { byteSize, isZip, MAX_RATES_FILE_BYTES, TOO_LARGE, unzipSingle } from './zip.ts';

export { CONVERSION_SCALE, type Conversion, conversionOn, convertAmount, crossRate } from './convert.ts';
export {
  DEMO_RATES_PREFIX,
  type DemoRatesFile,
  demoEcbHistCsv,
  demoHmrcMonthXml,
  demoRatesFiles,
  demoRatesName,
  demoRatesNote,
  isDemoRatesFile,
} from './demo-rates.ts';
export { MissingRateError, RatesFileError } from './errors.ts';
export {
  BASE_CURRENCY,
  ECB_FALLBACK_DAYS,
  lookupRate,
  mergeRates,
  type ParsedRates,
  RATE_SOURCES,
  type RatePeriod,
  type RateQuote,
  type RateSource,
  type RatesFileInfo,
  type RateTable,
  SOURCE_NAMES,
} from './table.ts';
export { MAX_RATES_FILE_BYTES } from './zip.ts';

/** One rates file as given to a run: a name for messages and records, its bytes, and its source when said. */
export interface RatesFileInput {
  name: string;
  bytes: Uint8Array;
  /** `ecb` or `hmrc` when the user said so (`--rates hmrc:FILE`); else detected from the content. */
  source?: RateSource;
}

/** Options of {@link parseRatesFile} and {@link loadRates}. */
export interface RatesOptions {
  /** The most a file may hold, in bytes (a ZIP's entry inflated); default {@link MAX_RATES_FILE_BYTES}. */
  maxBytes?: number;
}

/**
 * Parses one published rates file, its layout detected from its content (a ZIP archive is opened
 * first, inflated no further than `maxBytes`). Throws {@link RatesFileError} naming the file and
 * what is wrong, including a source that contradicts the one given, or a file over the limit.
 */
export function parseRatesFile(
  file: RatesFileInput,
  options: RatesOptions = {},
): { info: RatesFileInfo; parsed: ParsedRates } {
  const maxBytes = options.maxBytes ?? MAX_RATES_FILE_BYTES;
  if (file.bytes.length > maxBytes)
    throw new RatesFileError(
      file.name,
      `is ${byteSize(file.bytes.length)}, more than ${byteSize(maxBytes)}, ${TOO_LARGE}`,
    );
  const sha256 = createHash('sha256').update(file.bytes).digest('hex');
  let parsed: ParsedRates;
  try {
    const content = isZip(file.bytes) ? unzipSingle(file.bytes, maxBytes).content : Buffer.from(file.bytes);
    parsed = parseText(content.toString('utf8'));
  } catch (error) {
    if (error instanceof RatesFileError) throw error;
    throw new RatesFileError(file.name, (error as Error).message, { cause: error });
  }
  if (file.source !== undefined && file.source !== parsed.source) {
    throw new RatesFileError(
      file.name,
      `was given as ${file.source.toUpperCase()} rates but holds ${parsed.source.toUpperCase()} rates`,
    );
  }
  return { info: { name: file.name, sha256, format: parsed.format }, parsed };
}

function parseText(text: string): ParsedRates {
  if (isEcbXml(text)) return parseEcbXml(text);
  if (isHmrcXml(text)) return parseHmrcXml(text);
  if (isHmrcCsv(text)) return parseHmrcCsv(text);
  if (isEcbCsv(text)) return parseEcbCsv(text);
  throw new Error(
    'is none of the published layouts read here (ECB eurofxref CSV, ZIP or XML; HMRC monthly XML or CSV)',
  );
}

/** Parses and merges the rates files of a run into one table (see `mergeRates`). */
export function loadRates(files: readonly RatesFileInput[], options: RatesOptions = {}): RateTable {
  return mergeRates(files.map((file) => parseRatesFile(file, options)));
}
