/**
 * Wallet ids and token symbols that would break a journal (punctuation or case apart, quotes, line
 * breaks, the simulator's hostile texts) in the accounting products' files, read back by the
 * readers written from their owners' documentation (test/support/ledger-parsers): every wallet
 * keeps an account of its own (QuickBooks by a name it takes, Xero by code), every entry is one
 * journal, and DATEV, whose accounts are numbers, either books them or fails naming the field.
 */
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import { runJournal } from '../../../test/support/journal.ts';
import { readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import {
  quickbooksAccountPath,
  readQuickbooksJournals,
} from '../../../test/support/ledger-parsers/quickbooks.ts';
import { ValidationError } from '../../errors.ts';
import { HOSTILE_TEXTS } from '../../simulator/data.ts';
import { csvFormat } from './csv.ts';

/** A numbered chart with names (QuickBooks matches accounts by name, Xero and DATEV by number). */
const chart = (asset: Record<string, unknown>) => ({
  defaults: 'none',
  asset: { code: '1500', name: 'Digital assets', ...asset },
  cash: { code: '1200', name: 'Bank' },
  fee: { code: '4970', name: 'Fees' },
  gain: { code: '4900', name: 'Gains' },
  loss: { code: '6900', name: 'Losses' },
  income: { code: '4800', name: 'Income' },
  opening: { code: '9000', name: 'Opening' },
  rounding: { code: '6990', name: 'Rounding' },
  unclassified: { code: '1590', name: 'Unclassified' },
  'transfer-out': { code: '1591', name: 'Transfers out' },
});

/** Wallets whose ids differ only in punctuation or case, quotes, a line break, a ':', and hostile texts. */
const WALLETS = [
  'w.1',
  'w-1',
  'W_1',
  'W.1',
  'x"y',
  "x'y",
  'line\nbreak',
  'line break',
  'x:y',
  'x-y',
  ...HOSTILE_TEXTS,
];

/** Each wallet buys `i + 1` ETH (or token `i` `i + 1` units) a minute after the one before. */
const buys = (names: readonly string[], as: 'wallet' | 'token') =>
  names.map((name, i) =>
    tx({
      id: `buy-${i}`,
      date: new Date(Date.parse('2025-01-02T00:00:00.000Z') + i * 60_000).toISOString(),
      ...(as === 'wallet' ? { accountId: name } : {}),
      movements: [leg(as === 'wallet' ? 'ETH' : name, String(i + 1), String(10 * (i + 1)))],
    }),
  );

const perWallet = (format: string, settings: Record<string, unknown> = {}) =>
  runJournal(buys(WALLETS, 'wallet'), {
    gains: { pooling: 'account' },
    journal: {
      formats: ['csv', format],
      chart: chart({ perWallet: true }),
      settings: { [format]: settings },
    },
  });

/** Token symbols that would break a journal: quotes, `;`, line breaks, case apart, hostile texts. */
const TOKENS = [...new Set(['A\nB', 'X;Y', 'X"Y', "X'Y", 'stETH', 'STETH', 'usd', ...HOSTILE_TEXTS])];

describe('journals of hostile wallet ids and token symbols in accounting products', () => {
  it('generic CSV: keeps every token symbol as it is, read back by csv-parse, each on an account of its own', async () => {
    const run = await runJournal(buys(TOKENS, 'token'));
    const [file] = csvFormat.files(run.entries, {
      currency: 'USD',
      period: { start: '2025-01-01', end: '2025-12-31' },
      settings: {},
    });
    const rows: Record<string, string>[] = parse(file?.body as string, { columns: true });
    expect(rows).toHaveLength(run.entries.reduce((n, e) => n + e.postings.length, 0));
    // The asset lines, by the default chart's asset path (an empty token symbol is one too).
    const assets = rows.filter((row) => (row.account ?? '').startsWith('Assets:Crypto:'));
    // Lone surrogates are not text: read as UTF-8 (as csv-parse reads), each is U+FFFD.
    const asUtf8 = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
    expect(new Set(assets.map((row) => row.token))).toEqual(new Set(TOKENS.map(asUtf8)));
    expect(new Set(assets.map((row) => row.account)).size).toBe(TOKENS.length);
  });

  it('generic CSV: keeps the wallet "a\\u0000b" holding c apart from the wallet "a" holding "b\\u0000c", each on an account of its own', async () => {
    const holdings = [
      ['a\u0000b', 'c', '4'],
      ['a', 'b\u0000c', '5'],
    ] as const;
    const history = holdings.map(([wallet, token, quantity], i) =>
      tx({ id: `buy-${i}`, accountId: wallet, movements: [leg(token, quantity, `${quantity}0`)] }),
    );
    const run = await runJournal(history, {
      gains: { pooling: 'account' },
      journal: { chart: { asset: { perWallet: true } } },
    });
    const [file] = csvFormat.files(run.entries, {
      currency: 'USD',
      period: { start: '2025-01-01', end: '2025-12-31' },
      settings: {},
    });
    const rows: Record<string, string>[] = parse(file?.body as string, { columns: true });

    const held = new Map<string, Big>();
    for (const row of rows.filter((r) => (r.account ?? '').startsWith('Assets:Crypto:'))) {
      const key = JSON.stringify([row.account, row.token]);
      held.set(key, (held.get(key) ?? new Big(0)).plus(row.quantity || '0'));
    }
    expect([...held].map(([key, quantity]) => [...JSON.parse(key).slice(1), quantity.toFixed()])).toEqual(
      expect.arrayContaining([
        ['c', '4'],
        ['b\u0000c', '5'],
      ]),
    );
    expect(new Set([...held.keys()].map((key) => JSON.parse(key)[0])).size).toBe(2);
  });

  it("QuickBooks: gives every wallet an account name of its own right under the chart's account (a ':' of its id read as no sub-account), one line without double quotes, each part at most 100 characters", async () => {
    const run = await perWallet('quickbooks');
    const file = run.files.find((f) => f.name === 'journal-quickbooks.csv');
    const journals = readQuickbooksJournals(file?.body as string, 'MM/DD/YYYY');
    expect(journals).toHaveLength(run.manifest.entries);
    const assets = new Set(
      journals.flatMap((j) =>
        j.lines.filter((l) => l.account.startsWith('Digital assets')).map((l) => l.account),
      ),
    );
    // QuickBooks tells account names apart without case.
    expect(new Set([...assets].map((name) => name.toLowerCase())).size).toBe(WALLETS.length);
    for (const name of assets) {
      expect(name).not.toMatch(/["\p{Cc}\u2028\u2029]/u);
      // Read as QuickBooks splits Parent:Sub: the wallet's account right under Digital assets.
      const path = quickbooksAccountPath(name);
      expect(path).toHaveLength(2);
      for (const part of path) expect(Array.from(part).length).toBeLessThanOrEqual(100);
    }
  });

  it("Xero: refuses the wallets' account paths, longer than Xero's 10-character codes, naming the chart's field", async () => {
    const run = perWallet('xero');
    await expect(run).rejects.toThrow(ValidationError);
    await expect(run).rejects.toThrow(
      /^journal\.chart\.asset\.code: Xero cannot book account "1500:.*at most 10 characters/,
    );
  });

  it('DATEV: books the hostile token symbols of a one-account chart, one Beleg per entry, the amounts to the cent', async () => {
    const tokens = TOKENS;
    const run = await runJournal(buys(tokens, 'token'), {
      journal: {
        formats: ['csv', 'datev'],
        chart: chart({ perToken: false }),
        settings: {
          datev: {
            consultantNumber: 1001,
            clientNumber: 1,
            eurRates: Object.fromEntries(
              Array.from({ length: 12 }, (_, m) => [`2025-${String(m + 1).padStart(2, '0')}`, '1.08']),
            ),
          },
        },
      },
    });
    const [file] = run.files.filter((f) => f.name.startsWith('EXTF_'));
    const read = readDatevBuchungsstapel(file?.body as Uint8Array);
    expect(new Set(read.bookings.map((b) => b.byName.get('Beleginfo - Inhalt 1'))).size).toBe(
      run.manifest.entries,
    );
    const assets = read.bookings.filter((b) => b.konto === '1500');
    expect(assets.reduce((sum, b) => sum.plus(b.umsatz), new Big(0)).toFixed(2)).toBe(
      tokens.reduce((sum, _, i) => sum.plus(10 * (i + 1)), new Big(0)).toFixed(2),
    );
  });

  it("DATEV: fails naming the account's field when wallets would need accounts that are not numbers", async () => {
    const run = perWallet('datev', {
      consultantNumber: 1001,
      clientNumber: 1,
      eurRates: Object.fromEntries(
        Array.from({ length: 12 }, (_, m) => [`2025-${String(m + 1).padStart(2, '0')}`, '1.08']),
      ),
    });
    await expect(run).rejects.toThrow(ValidationError);
    await expect(run).rejects.toThrow(
      /^entries\[\d+\]\.postings\[\d+\]\.account\.code: DATEV needs account numbers/,
    );
  });
});
