import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { CHART, cr, dr, JANUARY, netByAccount, totalDebits } from '../../../test/support/ledger-fixtures.ts';
import { type DatevFile, readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import { decodeWindows1252 } from '../../../test/support/ledger-parsers/windows-1252.ts';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFile, LedgerFormatContext } from '../types.ts';
import { createDatevFormat, datevSettingsSchema } from './datev.ts';

const SETTINGS = { consultantNumber: 29098, clientNumber: 55003, fiscalYearStart: '01-01', accountLength: 4 };
const CLOCK = new Date('2024-02-01T09:30:15.250Z');
const datev = createDatevFormat({ now: () => CLOCK });

const context = (
  settings: Record<string, unknown> = SETTINGS,
  period = { start: '2024-01-01', end: '2024-01-31' },
): LedgerFormatContext => ({ currency: 'EUR', period, settings });

const write = (entries: readonly JournalEntry[], ctx = context()): LedgerFile[] => datev.files(entries, ctx);

const bytes = (file: LedgerFile | undefined): Uint8Array => file?.body as Uint8Array;

/** Net (Soll − Haben) per account of each entry, from the booking lines read back. */
function netsByEntry(file: DatevFile): Map<string, Map<string, Big>> {
  const byEntry = new Map<string, Map<string, Big>>();
  for (const b of file.bookings) {
    const id = b.byName.get('Beleginfo - Inhalt 1') as string;
    const net = byEntry.get(id) ?? new Map<string, Big>();
    byEntry.set(id, net);
    // The S/H flag is the side of Konto; Gegenkonto takes the other side.
    const sign = b.sollHaben === 'S' ? 1 : -1;
    const add = (account: string, value: Big) =>
      net.set(account, (net.get(account) ?? new Big(0)).plus(value));
    add(b.konto, new Big(b.umsatz).times(sign));
    add(b.gegenkonto, new Big(b.umsatz).times(-sign));
  }
  return byEntry;
}

function refusedField(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).field;
  }
  return 'not refused';
}

describe('DATEV Buchungsstapel (EXTF 700, Formatversion 13)', () => {
  it('writes a header a reader of the DATEV-Format reads by position: numbers, fiscal year, Sachkontenlänge, period, currency', () => {
    const files = write(JANUARY);
    expect(files.map((f) => f.name)).toEqual(['EXTF_Buchungsstapel_20240101_20240131.csv']);
    const { header } = readDatevBuchungsstapel(bytes(files[0]));
    expect(header).toMatchObject({
      kennzeichen: 'EXTF',
      versionsnummer: '700',
      formatkategorie: '21',
      formatname: 'Buchungsstapel',
      formatversion: '13',
      erzeugtAm: '20240201093015250',
      beraternummer: '29098',
      mandantennummer: '55003',
      wjBeginn: '20240101',
      sachkontenlaenge: '4',
      datumVom: '20240101',
      datumBis: '20240131',
      festschreibung: '0',
      wkz: 'EUR',
      sachkontenrahmen: '',
      fieldCount: 31,
    });
  });

  it('reads back balanced bookings: each entry’s Soll equals its Haben and its total, each account’s net equals its postings', () => {
    const file = readDatevBuchungsstapel(bytes(write(JANUARY)[0]));
    const nets = netsByEntry(file);
    expect([...nets.keys()]).toEqual(JANUARY.map((e) => e.id));
    for (const entry of JANUARY) {
      const lines = file.bookings.filter((b) => b.byName.get('Beleginfo - Inhalt 1') === entry.id);
      const soll = lines.filter((b) => b.sollHaben === 'S').reduce((s, b) => s.plus(b.umsatz), new Big(0));
      const haben = lines.filter((b) => b.sollHaben === 'H').reduce((s, b) => s.plus(b.umsatz), new Big(0));
      // Every line books Soll on Konto and Haben on Gegenkonto: the lines' sum is the entry's total.
      expect(soll.plus(haben).eq(totalDebits(entry)), entry.id).toBe(true);
      const expected = [...netByAccount(entry)].filter(([, net]) => !net.eq(0));
      const got = [...(nets.get(entry.id) ?? [])].filter(([, net]) => !net.eq(0));
      expect(got.map(([code, net]) => [code, net.toFixed(2)]).sort()).toEqual(
        expected.map(([code, net]) => [code, net.toFixed(2)]).sort(),
      );
      // A Konto/Gegenkonto pair per match: at most debits + credits − 1 lines.
      expect(lines.length).toBeLessThanOrEqual(entry.postings.length - 1);
      const [, month, day] = entry.date.split('-');
      expect(lines.every((b) => b.belegdatum === `${day}${month}` && b.wkzUmsatz === 'EUR')).toBe(true);
      expect(new Set(lines.map((b) => b.belegfeld1)).size).toBe(1);
    }
  });

  it('is Windows-1252 with CRLF line ends and decimal commas: umlauts, €, – as single bytes, quotes doubled, long text cut to 60', () => {
    const body = bytes(write(JANUARY)[0]);
    expect(body.includes(0xfc)).toBe(true); // ü
    expect(body.includes(0x80)).toBe(true); // €
    expect(body.includes(0x96)).toBe(true); // –
    const latin = decodeWindows1252(body);
    expect(latin.split('\r\n').at(-1)).toBe('');
    expect(latin.replaceAll('\r\n', '')).not.toMatch(/[\r\n]/);
    expect(latin).toContain('"Staking-Ertrag für ""Müller & Söhne"", Straße ÄÖÜ ß – 5 € Bon…"');
    const file = readDatevBuchungsstapel(body);
    expect(file.bookings.map((b) => b.byName.get('Umsatz (ohne Soll/Haben-Kz)'))).toContain('20000,00');
    const move = file.bookings.find((b) => b.byName.get('Beleginfo - Inhalt 1') === 'tx:move-1');
    expect(Array.from(move?.buchungstext ?? '')).toHaveLength(60);
    expect(move?.buchungstext.startsWith('=SUM(A1) Übertrag zwischen eigenen Wallets')).toBe(true);
    expect(move?.byName.get('Beleginfo - Inhalt 2')).toBe('move-out-1, move-in-1');
    // Belegfeld 1 takes 36 characters of A-Z 0-9 $ % - /: a long id keeps its start and a hash.
    const long = file.bookings.find((b) => b.byName.get('Beleginfo - Inhalt 1')?.startsWith('rollup:'));
    expect(long?.belegfeld1).toMatch(/^rollup-2024-01-very-long-en-[0-9a-f]{8}$/);
    expect(file.bookings.find((b) => b.byName.get('Beleginfo - Inhalt 1') === 'tx:buy-1')?.belegfeld1).toBe(
      'tx-buy-1',
    );
  });

  it('replaces a character Windows-1252 lacks with "?" and leaves no BOM', () => {
    const entry: JournalEntry = {
      id: 'e1',
      date: '2024-01-09',
      txIds: [],
      description: 'Airdrop 🚀 币',
      postings: [dr(CHART.ethA, '1.00'), cr(CHART.staking, '1.00')],
    };
    const body = bytes(write([entry])[0]);
    expect([body[0], body[1]]).toEqual([0x22, 0x45]); // "E
    expect(readDatevBuchungsstapel(body).bookings[0]?.buchungstext).toBe('Airdrop ? ?');
  });

  it('writes one batch per fiscal year the period touches, each with its WJ-Beginn and dates inside it', () => {
    const settings = {
      ...SETTINGS,
      fiscalYearStart: '07-01',
      chartOfAccounts: 'SKR03',
      lock: true,
      label: 'Krypto 2024',
    };
    const entries: JournalEntry[] = [
      { ...(JANUARY[0] as JournalEntry), date: '2024-03-31' },
      { ...(JANUARY[1] as JournalEntry), date: '2024-07-01' },
    ];
    const files = write(entries, context(settings, { start: '2024-01-01', end: '2024-12-31' }));
    expect(files.map((f) => f.name)).toEqual([
      'EXTF_Buchungsstapel_20240101_20240630.csv',
      'EXTF_Buchungsstapel_20240701_20241231.csv',
    ]);
    const [first, second] = files.map((f) => readDatevBuchungsstapel(bytes(f)));
    expect(first?.header).toMatchObject({ wjBeginn: '20230701', datumVom: '20240101', datumBis: '20240630' });
    expect(second?.header).toMatchObject({
      wjBeginn: '20240701',
      datumVom: '20240701',
      datumBis: '20241231',
    });
    expect(first?.header).toMatchObject({
      sachkontenrahmen: '03',
      festschreibung: '1',
      bezeichnung: 'Krypto 2024',
    });
    expect(first?.bookings.map((b) => b.belegdatum)).toEqual(['3103']);
    expect(new Set(second?.bookings.map((b) => b.belegdatum))).toEqual(new Set(['0107']));
  });

  it('continues a batch past the bookings limit in numbered files, never inside an entry', () => {
    const small = createDatevFormat({ now: () => CLOCK, maxBookingsPerFile: 5 });
    // tx:sell-1 makes 3 bookings, tx:sell-2 3, the roll-up 4: a cut at exactly 5 lines would split one.
    const files = small.files(JANUARY, context());
    expect(files.map((f) => f.name)).toEqual([
      'EXTF_Buchungsstapel_20240101_20240131-1.csv',
      'EXTF_Buchungsstapel_20240101_20240131-2.csv',
      'EXTF_Buchungsstapel_20240101_20240131-3.csv',
    ]);
    const read = files.map((f) => readDatevBuchungsstapel(bytes(f)));
    const owner = new Map<string, number>();
    read.forEach((file, n) => {
      expect(file.bookings.length).toBeLessThanOrEqual(5);
      for (const b of file.bookings) {
        const id = b.byName.get('Beleginfo - Inhalt 1') as string;
        expect(owner.get(id) ?? n, id).toBe(n);
        owner.set(id, n);
      }
    });
    expect(owner.size).toBe(JANUARY.length);
    const tooBig = createDatevFormat({ now: () => CLOCK, maxBookingsPerFile: 3 });
    expect(refusedField(() => tooBig.files(JANUARY, context()))).toBe('entries[5].postings');
  });

  it('writes a batch with no bookings for a month without activity', () => {
    const [file] = write([]);
    const read = readDatevBuchungsstapel(bytes(file));
    expect(read.bookings).toEqual([]);
    expect(read.columns).toHaveLength(125);
  });

  it('refuses settings by field: Beraternummer, Mandantennummer, WJ-Beginn, Sachkontenlänge, unknown keys', () => {
    const bad = (patch: Record<string, unknown>) =>
      refusedField(() => write(JANUARY, context({ ...SETTINGS, ...patch })));
    expect(bad({ consultantNumber: 999 })).toBe('journal.settings.datev.consultantNumber');
    expect(bad({ consultantNumber: '12a4' })).toBe('journal.settings.datev.consultantNumber');
    expect(bad({ clientNumber: 100000 })).toBe('journal.settings.datev.clientNumber');
    expect(bad({ fiscalYearStart: '13-01' })).toBe('journal.settings.datev.fiscalYearStart');
    expect(bad({ fiscalYearStart: '02-29' })).toBe('journal.settings.datev.fiscalYearStart');
    expect(bad({ accountLength: 3 })).toBe('journal.settings.datev.accountLength');
    expect(bad({ initials: 'ABC' })).toBe('journal.settings.datev.initials');
    expect(bad({ beraternummer: 1 })).toBe('journal.settings.datev.beraternummer');
    expect(refusedField(() => write(JANUARY, context({ clientNumber: 1 })))).toBe(
      'journal.settings.datev.consultantNumber',
    );
    // Digits given as text (a CLI file, CDK context) are taken.
    expect(datevSettingsSchema.parse({ consultantNumber: '29098', clientNumber: '7' })).toMatchObject({
      consultantNumber: 29098,
      clientNumber: 7,
      accountLength: 4,
      fiscalYearStart: '01-01',
    });
  });

  it('refuses account numbers that are not Sachkontenlänge digits, cents finer than DATEV takes and dates outside the period', () => {
    const named = { ...CHART.btc, code: 'Assets:BTC' };
    const withCode = (acc = named): JournalEntry => ({
      ...(JANUARY[0] as JournalEntry),
      postings: [dr(acc, '1.00'), cr(CHART.bank, '1.00')],
    });
    expect(refusedField(() => write([withCode()]))).toBe('entries[0].postings[0].account.code');
    expect(refusedField(() => write([withCode({ ...CHART.btc, code: '15100' })]))).toBe(
      'entries[0].postings[0].account.code',
    );
    const fiveDigits: JournalEntry = {
      ...(JANUARY[0] as JournalEntry),
      postings: [dr({ ...CHART.btc, code: '15100' }, '1.00'), cr({ ...CHART.bank, code: '12000' }, '1.00')],
    };
    const [five] = write([fiveDigits], context({ ...SETTINGS, accountLength: 5 }));
    const read = readDatevBuchungsstapel(bytes(five));
    expect(read.header.sachkontenlaenge).toBe('5');
    expect(read.bookings.map((b) => [b.konto, b.gegenkonto])).toEqual([['15100', '12000']]);
    const millis: JournalEntry = {
      ...(JANUARY[0] as JournalEntry),
      postings: [dr(CHART.btc, '1.005'), cr(CHART.bank, '1.005')],
    };
    expect(refusedField(() => write([millis]))).toBe('entries[0].postings[0].debit');
    expect(refusedField(() => write([{ ...(JANUARY[0] as JournalEntry), date: '2024-02-01' }]))).toBe(
      'entries[0].date',
    );
    expect(refusedField(() => write(JANUARY, { ...context(), currency: 'euro' }))).toBe('currency');
  });
});
