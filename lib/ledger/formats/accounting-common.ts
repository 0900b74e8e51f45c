/**
 * What the three accounting products' formats (QuickBooks Online, Xero, DATEV) share: reading a
 * format's settings with zod (bad values refused by field), checking that each entry is a set of
 * exact, balanced postings, grouping whole entries into files under a line limit, and RFC 4180
 * CSV lines.
 */
import Big from 'big.js';
import type { z } from 'zod';
import { minorUnit } from '../../domain/index.ts';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, Posting } from '../types.ts';

const AMOUNT = /^\d+(\.\d+)?$/;

/**
 * Parses a format's settings (`LedgerFormatContext.settings`) with its schema; the first bad
 * value is refused as a `ValidationError` naming `<prefix>.<field>`.
 */
export function parseFormatSettings<S extends z.ZodType>(
  schema: S,
  settings: unknown,
  prefix: string,
): z.output<S> {
  const parsed = schema.safeParse(settings ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  // An unknown setting is named itself, not its parent object.
  const keys = issue?.code === 'unrecognized_keys' ? issue.keys.slice(0, 1) : [];
  const where = [...(issue?.path ?? []), ...keys].map(String);
  const path = where.length > 0 ? `${prefix}.${where.join('.')}` : prefix;
  throw new ValidationError(path, issue?.message ?? 'invalid settings', { cause: parsed.error });
}

/** One posting reduced to its side and its exact amount (never zero). */
export interface SidedPosting {
  posting: Posting;
  /** Index in the entry's `postings`. */
  index: number;
  side: 'debit' | 'credit';
  amount: Big;
}

/**
 * The entry's non-zero postings with their side, after checking each amount is a plain
 * non-negative decimal, at most one side is non-zero, and debits equal credits exactly.
 * `at` is the entry's position in the input, for the error's field name.
 */
export function sidedPostings(entry: JournalEntry, at: number): SidedPosting[] {
  const sided: SidedPosting[] = [];
  let debits = new Big(0);
  let credits = new Big(0);
  entry.postings.forEach((posting, index) => {
    const field = `entries[${at}].postings[${index}]`;
    const debit = amountOf(posting.debit, `${field}.debit`);
    const credit = amountOf(posting.credit, `${field}.credit`);
    if (!debit.eq(0) && !credit.eq(0)) {
      throw new ValidationError(
        field,
        `has both a debit (${posting.debit}) and a credit (${posting.credit})`,
      );
    }
    debits = debits.plus(debit);
    credits = credits.plus(credit);
    if (!debit.eq(0)) sided.push({ posting, index, side: 'debit', amount: debit });
    if (!credit.eq(0)) sided.push({ posting, index, side: 'credit', amount: credit });
  });
  if (!debits.eq(credits)) {
    throw new ValidationError(
      `entries[${at}]`,
      `entry ${JSON.stringify(entry.id)} does not balance: debits ${debits.toFixed()} ≠ credits ${credits.toFixed()}`,
    );
  }
  return sided;
}

function amountOf(value: string, field: string): Big {
  if (!AMOUNT.test(value))
    throw new ValidationError(field, `must be a plain non-negative decimal, got ${JSON.stringify(value)}`);
  return new Big(value);
}

/** `YYYY-MM-DD` split into numbers, after checking it is one; `field` names it in the error. */
export function localDate(value: string, field: string): { year: number; month: number; day: number } {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const [year, month, day] = match ? [Number(match[1]), Number(match[2]), Number(match[3])] : [0, 0, 0];
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (!match || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    throw new ValidationError(field, `must be a date YYYY-MM-DD, got ${JSON.stringify(value)}`);
  }
  return { year, month, day };
}

/**
 * An exact amount as the importers read it: a plain decimal padded to `currency`'s minor unit
 * (`12.5` → `12.50` EUR), never rounded (an entry rounded line by line could stop balancing).
 */
export function moneyText(amount: Big, currency: string): string {
  const exact = amount.toFixed();
  const scale = exact.split('.')[1]?.length ?? 0;
  const digits = minorUnit(currency) ?? 0;
  return scale >= digits ? exact : amount.toFixed(digits);
}

/** Two digits. */
export function pad2(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * Groups consecutive items into chunks of at most `limit` lines, never splitting an item:
 * `linesOf(item)` says how many lines it takes. An item longer than the limit is refused by
 * `tooLong(item, lines)`, which must throw.
 */
export function chunkByLines<T>(
  items: readonly T[],
  limit: number,
  linesOf: (item: T) => number,
  tooLong: (item: T, lines: number) => never,
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let used = 0;
  for (const item of items) {
    const lines = linesOf(item);
    if (lines > limit) tooLong(item, lines);
    if (used + lines > limit && current.length > 0) {
      chunks.push(current);
      current = [];
      used = 0;
    }
    current.push(item);
    used += lines;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/** One RFC 4180 record: a field is quoted when it holds a comma, a quote, CR or LF. */
export function csvRecord(fields: readonly string[]): string {
  return `${fields.map((field) => (/[",\r\n]/.test(field) ? `"${field.replaceAll('"', '""')}"` : field)).join(',')}\r\n`;
}

/**
 * Free text for a cell an accountant may open in a spreadsheet before importing: control
 * characters become spaces, and text starting with `= + - @` gets a leading `'` (the project's
 * formula guard). Never applied to amounts, account names or codes, which must reach the
 * importer as they are.
 */
export function safeText(value: string): string {
  const flat = flatText(value);
  return /^[=+\-@]/.test(flat) ? `'${flat}` : flat;
}

/** Control characters (line breaks, tabs, C1 controls) become one space each run. */
export function flatText(value: string): string {
  return value.replace(/\p{Cc}+/gu, ' ');
}
