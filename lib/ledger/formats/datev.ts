/**
 * DATEV Buchungsstapel in the DATEV-Format (EXTF, header version 700, Formatkategorie 21,
 * Formatversion 13), as the DATEV developer portal describes it: line 1 the header (Berater- and
 * Mandantennummer, fiscal year, Sachkontenlänge, period), line 2 the 125 column names, then one
 * booking line per Konto/Gegenkonto pair; fields separated by `;`, text in double quotes (quotes
 * doubled), decimal comma, CRLF after every line, encoded in Windows-1252. DATEV's pages: see
 * README "DATEV".
 *
 * A journal entry with several postings becomes several booking lines: its debits are matched to
 * its credits, largest first, each match one line (Konto debited "S", Gegenkonto credited). An
 * account's lines of one entry add up to its posting exactly, no clearing account is needed, and
 * the lines of one entry share Belegfeld 1 (the entry) so DATEV shows them as one Beleg.
 */
import { createHash } from 'node:crypto';
import Big from 'big.js';
import { z } from 'zod';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFile, LedgerFormat, LedgerFormatContext } from '../types.ts';
import {
  chunkByLines,
  flatText,
  localDate,
  pad2,
  parseFormatSettings,
  type SidedPosting,
  sidedPostings,
} from './accounting-common.ts';
import { DATEV_BOOKING_COLUMNS } from './datev-columns.ts';
import { DATEV_DEFAULT_CHARTS, onDefaultChart } from './default-charts.ts';
import { encodeWindows1252 } from './windows-1252.ts';

/** DATEV processes at most 99 999 bookings from one Buchungsstapel file. */
export const DATEV_MAX_BOOKINGS_PER_FILE = 99_999;
/** Buchungstext holds at most 60 characters. */
export const DATEV_BUCHUNGSTEXT_MAX = 60;
/** Belegfeld 1 holds at most 36 characters of `A-Z a-z 0-9 $ % - /`. */
export const DATEV_BELEGFELD1_MAX = 36;

const digits = (label: string, min: number, max: number) =>
  z
    .union([z.number(), z.string().regex(/^\d+$/, `the ${label} must be digits only`).transform(Number)])
    .pipe(
      z.number().int().min(min, `the ${label} is at least ${min}`).max(max, `the ${label} is at most ${max}`),
    );

/** Settings of the DATEV format (`LedgerFormatContext.settings`), from the tax adviser. */
export const datevSettingsSchema = z.strictObject({
  /** Beraternummer (1001–9999999). */
  consultantNumber: digits('Beraternummer', 1001, 9_999_999),
  /** Mandantennummer (1–99999). */
  clientNumber: digits('Mandantennummer', 1, 99_999),
  /** WJ-Beginn: the first day of the fiscal year, `MM-DD` (`01-01`, `07-01`). */
  fiscalYearStart: z
    .string()
    .regex(/^(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be MM-DD such as 01-01')
    .refine((value) => validMonthDay(value), 'is not a day of every year (29 February is not)')
    .default('01-01'),
  /** Sachkontenlänge: the digits of every account number (4–8; usually 4). */
  accountLength: digits('Sachkontenlänge', 4, 8).default(4),
  /**
   * Sachkontenrahmen: SKR03 or SKR04, in the header; the default chart's accounts are booked on
   * its standard accounts (formats/default-charts.ts). Required when the chart leaves kinds to the
   * defaults.
   */
  chartOfAccounts: z.enum(['SKR03', 'SKR04']).optional(),
  /**
   * The Kurs of a journal not in EUR, per booking month (`YYYY-MM`) or day (`YYYY-MM-DD`, first):
   * units of the journal's currency for 1 EUR, as the ECB publishes them (`"2025-01": "1.0354"`).
   * DATEV books a foreign-currency amount with its Kurs, Basis-Umsatz and WKZ Basis-Umsatz.
   */
  eurRates: z
    .record(
      z.string().regex(/^\d{4}-\d{2}(-\d{2})?$/, 'keys are months YYYY-MM or days YYYY-MM-DD'),
      z
        .string()
        .regex(/^\d{1,4}(\.\d{1,6})?$/, 'a rate of at most 4 digits and 6 decimals (DATEV: Kurs)')
        .refine((rate) => Number(rate) > 0, 'a rate is not 0'),
    )
    .optional(),
  /** Bezeichnung of the batch (at most 30 characters); by default `Krypto` and the period. */
  label: z.string().max(30, 'at most 30 characters').optional(),
  /** Diktatkürzel (up to two letters). */
  initials: z
    .string()
    .regex(/^[A-Za-z]{0,2}$/, 'up to two letters')
    .optional(),
  /** Festschreibung: lock the bookings on import (off by default, so the adviser can review). */
  lock: z.boolean().default(false),
});

/** The parsed DATEV settings. */
export type DatevSettings = z.output<typeof datevSettingsSchema>;

/** What the DATEV format takes injected: the clock for "Erzeugt am", a smaller batch limit (tests). */
export interface DatevFormatOptions {
  now?: () => Date;
  /** Bookings per file, at most (and by default) DATEV's 99 999. */
  maxBookingsPerFile?: number;
}

/** How one call writes: when it was made and how many bookings a file takes. */
interface WriteOptions {
  createdAt: Date;
  maxBookings: number;
}

/** The DATEV format with an injected clock (tests); {@link datevFormat} uses the system clock. */
export function createDatevFormat(options: DatevFormatOptions = {}): LedgerFormat {
  const now = options.now ?? (() => new Date());
  const maxBookings = Math.min(
    options.maxBookingsPerFile ?? DATEV_MAX_BOOKINGS_PER_FILE,
    DATEV_MAX_BOOKINGS_PER_FILE,
  );
  return {
    id: 'datev',
    description: 'DATEV Buchungsstapel (EXTF 700, Formatversion 13), one file per fiscal year, Windows-1252',
    files: (entries, context) =>
      datevFiles(entries, context, { createdAt: context.createdAt ?? now(), maxBookings }),
    settingsSchema: datevSettingsSchema,
  };
}

/** The DATEV Buchungsstapel format (`--journal-format datev`). */
export const datevFormat: LedgerFormat = createDatevFormat();

interface Booking {
  amount: Big;
  debit: SidedPosting;
  credit: SidedPosting;
}

interface Prepared {
  entry: JournalEntry;
  at: number;
  date: { year: number; month: number; day: number };
  bookings: Booking[];
}

/** A part of the period inside one fiscal year: one Buchungsstapel (or more past 99 999 lines). */
interface Batch {
  fiscalYearStart: string;
  from: string;
  to: string;
  items: Prepared[];
}

/**
 * Writes one Buchungsstapel per fiscal year the period touches (split further past 99 999
 * bookings, never inside an entry). Refuses bad settings, account numbers that are not
 * `accountLength` digits, amounts finer than cents and entries outside the period, by field.
 */
export function datevFiles(
  entries: readonly JournalEntry[],
  context: LedgerFormatContext,
  options: WriteOptions,
): LedgerFile[] {
  const settings = parseFormatSettings(datevSettingsSchema, context.settings, 'journal.settings.datev');
  checkContext(context, settings);
  const batches = fiscalBatches(context.period, settings.fiscalYearStart);
  onStandardChart(entries, settings).forEach((entry, at) => {
    const date = localDate(entry.date, `entries[${at}].date`);
    const batch = batches.find((b) => b.from <= entry.date && entry.date <= b.to);
    if (!batch) {
      throw new ValidationError(
        `entries[${at}].date`,
        `${entry.date} is outside the period ${context.period.start} – ${context.period.end}`,
      );
    }
    batch.items.push({ entry, at, date, bookings: bookingsOf(entry, at, settings.accountLength) });
  });
  const kurs = kursOf(settings, context);
  return batches.flatMap((batch) => batchFiles(batch, settings, context.currency, kurs, options));
}

/**
 * The entries with the default chart's accounts on the standard chart's (SKR03 or SKR04), their
 * numbers padded to the Sachkontenlänge with zeros; refused naming the setting without one.
 */
function onStandardChart(entries: readonly JournalEntry[], settings: DatevSettings): readonly JournalEntry[] {
  return onDefaultChart(entries, (account) => {
    const skr = settings.chartOfAccounts;
    if (skr === undefined)
      throw new ValidationError(
        'journal.settings.datev.chartOfAccounts',
        `required: the chart leaves the ${account.kind} account to the defaults (${account.code}), which DATEV cannot book; set "SKR03" or "SKR04" to book the defaults on the standard chart, or give journal.chart a numbered account for every kind`,
      );
    const preset = DATEV_DEFAULT_CHARTS[skr][account.kind];
    return { code: preset.code.padEnd(settings.accountLength, '0'), name: preset.name, kind: account.kind };
  });
}

function checkContext({ currency, period, eurRate }: LedgerFormatContext, settings: DatevSettings): void {
  if (!/^[A-Z]{3}$/.test(currency)) {
    throw new ValidationError(
      'currency',
      `DATEV needs an ISO 4217 code (WKZ), got ${JSON.stringify(currency)}`,
    );
  }
  if (currency !== 'EUR' && settings.eurRates === undefined && eurRate === undefined)
    throw new ValidationError(
      'journal.settings.datev.eurRates',
      `required: the journal is in ${currency}, and DATEV books an amount in a foreign currency with its Kurs, Basis-Umsatz (EUR) and WKZ Basis-Umsatz (fields 4–6); give the run the ECB's rates (CLI --rates ecb:FILE, the ECB's eurofxref-hist file: the Kurs of each booking day is then read from it), or the ECB's ${currency} per EUR for each month in this setting ({"2025-01": "1.0354", …}), or write the journal in EUR (gains.currency "EUR", CLI --gains-currency EUR with --rates ecb:FILE)${currency === 'GBP' ? ". A run converted at HMRC's rates (--rates hmrc:FILE) cannot take the ECB's file as well: give this setting" : ''}`,
    );
  localDate(period.start, 'period.start');
  localDate(period.end, 'period.end');
  if (period.end < period.start)
    throw new ValidationError('period.end', `is before period.start ${period.start}`);
}

/** One batch's file, or its numbered parts past DATEV's 99 999 bookings. */
function batchFiles(
  batch: Batch,
  settings: DatevSettings,
  currency: string,
  kurs: Kurs,
  options: WriteOptions,
): LedgerFile[] {
  const limit = options.maxBookings;
  const chunks = chunkByLines(
    batch.items,
    limit,
    (item) => item.bookings.length,
    (item, lines) => {
      throw new ValidationError(
        `entries[${item.at}].postings`,
        `entry ${JSON.stringify(item.entry.id)} makes ${lines} bookings; one Buchungsstapel takes at most ${limit}`,
      );
    },
  );
  const parts = chunks.length === 0 ? [[]] : chunks;
  const name = `EXTF_Buchungsstapel_${compact(batch.from)}_${compact(batch.to)}`;
  return parts.map((items, n) => ({
    name: `${name}${parts.length > 1 ? `-${n + 1}` : ''}.csv`,
    // DATEV imports a file whose name begins with EXTF_: a run's own prefix goes after it.
    head: 'EXTF_',
    contentType: 'text/csv; charset=windows-1252',
    body: encodeWindows1252(batchText({ ...batch, items }, settings, currency, kurs, options.createdAt)),
  }));
}

/** The period cut at fiscal year starts: one batch per fiscal year it touches. */
function fiscalBatches(period: { start: string; end: string }, fiscalYearStart: string): Batch[] {
  const batches: Batch[] = [];
  let from = period.start;
  while (from <= period.end) {
    const start = fiscalYearOf(from, fiscalYearStart);
    const next = `${Number(start.slice(0, 4)) + 1}-${fiscalYearStart}`;
    const lastDay = dayBefore(next);
    const to = lastDay < period.end ? lastDay : period.end;
    batches.push({ fiscalYearStart: start, from, to, items: [] });
    from = next;
  }
  return batches;
}

/** The first day of the fiscal year holding `date` (both `YYYY-MM-DD`). */
function fiscalYearOf(date: string, monthDay: string): string {
  const year = Number(date.slice(0, 4));
  return date.slice(5) >= monthDay ? `${year}-${monthDay}` : `${year - 1}-${monthDay}`;
}

function dayBefore(date: string): string {
  const { year, month, day } = localDate(date, 'date');
  return new Date(Date.UTC(year, month - 1, day - 1)).toISOString().slice(0, 10);
}

function validMonthDay(monthDay: string): boolean {
  const [month, day] = monthDay.split('-').map(Number) as [number, number];
  // 2001 is not a leap year: a fiscal year must start on a day every year has.
  return new Date(Date.UTC(2001, month - 1, day)).getUTCDate() === day;
}

/**
 * The entry's debits matched to its credits, largest first: each match is one booking of the
 * smaller remaining amount, so an account's bookings add up to its posting.
 */
function bookingsOf(entry: JournalEntry, at: number, accountLength: number): Booking[] {
  const sided = sidedPostings(entry, at);
  for (const line of sided) checkPosting(line, at, accountLength);
  const largestFirst = (a: SidedPosting, b: SidedPosting) => b.amount.cmp(a.amount) || a.index - b.index;
  const debits = sided.filter((line) => line.side === 'debit').sort(largestFirst);
  const credits = sided.filter((line) => line.side === 'credit').sort(largestFirst);
  const bookings: Booking[] = [];
  let [d, c] = [0, 0];
  let [debitLeft, creditLeft] = [debits[0]?.amount ?? new Big(0), credits[0]?.amount ?? new Big(0)];
  while (d < debits.length && c < credits.length) {
    const amount = debitLeft.lt(creditLeft) ? debitLeft : creditLeft;
    bookings.push({ amount, debit: debits[d] as SidedPosting, credit: credits[c] as SidedPosting });
    debitLeft = debitLeft.minus(amount);
    creditLeft = creditLeft.minus(amount);
    if (debitLeft.eq(0)) debitLeft = debits[++d]?.amount ?? new Big(0);
    if (creditLeft.eq(0)) creditLeft = credits[++c]?.amount ?? new Big(0);
  }
  return bookings;
}

function checkPosting(
  { posting, index, side, amount }: SidedPosting,
  at: number,
  accountLength: number,
): void {
  const field = `entries[${at}].postings[${index}]`;
  const { code, name, kind } = posting.account;
  if (!/^\d+$/.test(code) || code.length !== accountLength) {
    throw new ValidationError(
      `${field}.account.code`,
      `DATEV needs account numbers of ${accountLength} digits (Sachkontenlänge); account ${JSON.stringify(name)} (${kind}) has ${JSON.stringify(code)}`,
    );
  }
  if (amount.round(2).cmp(amount) !== 0 || amount.gte('1e10')) {
    throw new ValidationError(
      `${field}.${side}`,
      `DATEV takes amounts in cents below 10 000 000 000, got ${amount.toFixed()}`,
    );
  }
}

function batchText(
  batch: Batch,
  settings: DatevSettings,
  currency: string,
  kurs: Kurs,
  createdAt: Date,
): string {
  const lines = [headerLine(batch, settings, currency, createdAt), DATEV_BOOKING_COLUMNS.join(';')];
  for (const item of batch.items) {
    for (const booking of item.bookings) lines.push(bookingLine(item, booking, currency, kurs));
  }
  return lines.map((line) => `${line}\r\n`).join('');
}

/** Line 1: the 31 header fields of version 700 for a Buchungsstapel. */
function headerLine(batch: Batch, settings: DatevSettings, currency: string, createdAt: Date): string {
  const label = settings.label ?? `Krypto ${batch.from} - ${batch.to}`;
  return [
    text('EXTF'), // Kennzeichen: produced outside DATEV
    '700', // Versionsnummer of the header
    '21', // Formatkategorie: Buchungsstapel
    text('Buchungsstapel'), // Formatname
    '13', // Formatversion
    timestamp(createdAt), // Erzeugt am
    '', // Importiert (DATEV fills it)
    text('RE'), // Herkunft
    text('pbs-export'), // Exportiert von
    text(''), // Importiert von
    String(settings.consultantNumber), // Beraternummer
    String(settings.clientNumber), // Mandantennummer
    compact(batch.fiscalYearStart), // WJ-Beginn
    String(settings.accountLength), // Sachkontenlänge
    compact(batch.from), // Datum vom
    compact(batch.to), // Datum bis
    text(label), // Bezeichnung
    text((settings.initials ?? '').toUpperCase()), // Diktatkürzel
    '1', // Buchungstyp: Finanzbuchführung
    '0', // Rechnungslegungszweck: unabhängig
    settings.lock ? '1' : '0', // Festschreibung
    text(currency), // WKZ
    '', // reserviert
    text(''), // Derivatskennzeichen
    '', // reserviert
    '', // reserviert
    text(settings.chartOfAccounts?.slice(3) ?? ''), // Sachkontenrahmen: 03 / 04
    '', // ID der Branchenlösung
    '', // reserviert
    text(''), // reserviert
    text(''), // Anwendungsinformation
  ].join(';');
}

/** One booking line: 125 fields, those not used left empty. */
function bookingLine(item: Prepared, booking: Booking, currency: string, kurs: Kurs): string {
  const fields = new Array<string>(DATEV_BOOKING_COLUMNS.length).fill('');
  const set = (column: string, value: string) => {
    fields[DATEV_BOOKING_COLUMNS.indexOf(column)] = value;
  };
  set('Umsatz (ohne Soll/Haben-Kz)', booking.amount.toFixed(2).replace('.', ','));
  set('Soll/Haben-Kennzeichen', text('S'));
  set('WKZ Umsatz', text(currency));
  if (currency !== 'EUR') {
    // A foreign-currency amount: its Kurs (units per EUR), its EUR amount and EUR (fields 4–6).
    const rate = kurs(item);
    set('Kurs', rate.toFixed(6).replace('.', ','));
    set('Basis-Umsatz', booking.amount.div(rate).round(2, Big.roundHalfUp).toFixed(2).replace('.', ','));
    set('WKZ Basis-Umsatz', text('EUR'));
  }
  set('Konto', booking.debit.posting.account.code);
  set('Gegenkonto (ohne BU-Schlüssel)', booking.credit.posting.account.code);
  set('Belegdatum', `${pad2(item.date.day)}${pad2(item.date.month)}`);
  set('Belegfeld 1', text(belegfeld1(item.entry.id)));
  set('Buchungstext', text(cut(item.entry.description, DATEV_BUCHUNGSTEXT_MAX)));
  set('Beleginfo - Art 1', text('Journal-Eintrag'));
  set('Beleginfo - Inhalt 1', text(cut(item.entry.id, 210)));
  if (item.entry.txIds.length > 0) {
    set('Beleginfo - Art 2', text('Transaktion'));
    set('Beleginfo - Inhalt 2', text(cut(item.entry.txIds.join(', '), 210)));
  }
  return fields.join(';');
}

/** The Kurs of an entry: units of the journal's currency per 1 EUR on its booking day. */
type Kurs = (item: Prepared) => Big;

/**
 * Where the Kurs comes from: the setting `eurRates` when given (the day's, else the month's;
 * refused naming the missing key), else the run's ECB rates (`context.eurRate`: the booking day's
 * fixing, or the latest before it on a day without one; refused naming the day when not covered).
 */
function kursOf(settings: DatevSettings, context: LedgerFormatContext): Kurs {
  const { eurRates } = settings;
  const { eurRate, currency } = context;
  if (eurRates === undefined && eurRate !== undefined) {
    return (item) => {
      try {
        return new Big(eurRate(currency, item.entry.date).rate);
      } catch (error) {
        // The lookup's own reason (the day, the currency, why), named once by the request's field.
        const reason = error instanceof ValidationError ? error.reason : (error as Error).message;
        throw new ValidationError(
          'gains.rates',
          `${reason} (DATEV's Kurs of entry ${JSON.stringify(item.entry.id)} of ${item.entry.date})`,
          { cause: error },
        );
      }
    };
  }
  return (item) => {
    const day = item.entry.date;
    const rate = eurRates?.[day] ?? eurRates?.[day.slice(0, 7)];
    if (rate === undefined)
      throw new ValidationError(
        `journal.settings.datev.eurRates.${day.slice(0, 7)}`,
        `required: entry ${JSON.stringify(item.entry.id)} of ${day} needs the Kurs of its month (or day)`,
      );
    return new Big(rate);
  };
}

/**
 * Belegfeld 1 from the entry's id: characters DATEV does not take become `-`; an id longer than
 * 36 characters keeps its start and a short hash of the whole id, so two long ids stay apart.
 */
function belegfeld1(id: string): string {
  const clean = id.replace(/[^A-Za-z0-9$%\-/]/g, '-');
  if (clean.length <= DATEV_BELEGFELD1_MAX) return clean;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  return `${clean.slice(0, DATEV_BELEGFELD1_MAX - 9)}-${hash}`;
}

/** A text field: control characters (not allowed inside) become spaces; quotes doubled. */
function text(value: string): string {
  return `"${flatText(value).replaceAll('"', '""')}"`;
}

function cut(value: string, max: number): string {
  const flat = flatText(value).trim();
  const chars = Array.from(flat);
  return chars.length <= max ? flat : `${chars.slice(0, max - 1).join('')}…`;
}

function compact(date: string): string {
  return date.replaceAll('-', '');
}

/** Erzeugt am: `YYYYMMDDHHMMSSFFF` (UTC). */
function timestamp(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 17);
}
