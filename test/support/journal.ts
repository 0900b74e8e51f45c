/**
 * Crafted histories for the journal's tests, and a run of the journal over one through the gains
 * feed (as an export runs it, every transaction in one fetch window).
 */
import type { CanonicalTransaction } from '../../lib/domain/index.ts';
import type { Row } from '../../lib/domain/table.ts';
import { periodRange } from '../../lib/export/plan/period.ts';
import { parseExportRequest } from '../../lib/export/plan/request.ts';
import { createGainsFeed } from '../../lib/export/report/gains-feed.ts';
import type { JournalManifest } from '../../lib/export/report/journal-feed.ts';
import type { RateTable } from '../../lib/fx/index.ts';
import type { JournalEntry, LedgerFile } from '../../lib/ledger/types.ts';
import { leg, tx } from './gains.ts';

/**
 * Two wallets (A, B), USD: a buy with a fiat fee (January), nothing in February, a move A → B and a
 * partial sale from B with a fiat fee (March), staking income and a swap paying gas in ETH (April).
 */
export const WALLETS_HISTORY: readonly CanonicalTransaction[] = [
  tx({ id: 'buy', date: '2025-01-10T10:00:00.000Z', movements: [leg('ETH', '2', '200')], feeAmount: '2' }),
  tx({
    id: 'send',
    date: '2025-03-05T10:00:00.000Z',
    category: 'transfer',
    hash: '0xabc',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-3000')],
  }),
  tx({
    id: 'receive',
    date: '2025-03-05T10:01:00.000Z',
    category: 'transfer',
    hash: '0xabc',
    accountId: 'B',
    movements: [leg('ETH', '1', '3000')],
  }),
  tx({
    id: 'sell',
    date: '2025-03-20T10:00:00.000Z',
    accountId: 'B',
    movements: [leg('ETH', '-0.5', '-300')],
    feeAmount: '1',
  }),
  tx({
    id: 'stake',
    date: '2025-04-02T10:00:00.000Z',
    category: 'staking',
    movements: [leg('ETH', '0.1', '30')],
  }),
  tx({
    id: 'swap',
    date: '2025-04-15T10:00:00.000Z',
    movements: [leg('ETH', '-0.2', '-60'), leg('USDC', '50', '59')],
    feeAmount: '3',
    feeSymbol: 'ETH',
    feeQuantity: '0.001',
  }),
];

/**
 * One wallet, universally pooled: a buy of BTC and of ETH, then BTC sent to a wallet outside the
 * portfolio paying its gas in ETH (a fee expense), and an airdrop the chart does not name.
 */
export const OUTSIDE_HISTORY: readonly CanonicalTransaction[] = [
  tx({ id: 'btc', date: '2025-01-02T10:00:00.000Z', movements: [leg('BTC', '1', '100')] }),
  tx({ id: 'eth', date: '2025-01-03T10:00:00.000Z', movements: [leg('ETH', '1', '10')] }),
  tx({
    id: 'out',
    date: '2025-02-10T10:00:00.000Z',
    category: 'transfer',
    hash: '0xout',
    movements: [leg('BTC', '-0.4', '-44')],
    feeAmount: '0.5',
    feeSymbol: 'ETH',
    feeQuantity: '0.01',
  }),
  tx({
    id: 'drop',
    date: '2025-02-11T10:00:00.000Z',
    category: 'income',
    movements: [leg('XYZ', '5', '7.5')],
  }),
];

/** What {@link runJournal} returns. */
export interface JournalRun {
  rows: Row[];
  /** The entries as the formats get them. */
  entries: JournalEntry[];
  files: LedgerFile[];
  /** The same files as an export writes them, streamed from the entries, by name. */
  streamed: Record<string, string>;
  manifest: JournalManifest;
  tables: Record<string, Row[]>;
}

/** Runs the journal of `history` for 2025 (UTC) with the request's extra fields. */
export async function runJournal(
  history: readonly CanonicalTransaction[],
  extra: Record<string, unknown> = {},
  rates?: RateTable,
): Promise<JournalRun> {
  const request = parseExportRequest({ profile: 'acme', period: '2025', reports: ['journal'], ...extra });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(
    request,
    { start: range.start.toJSDate(), end: range.end.toJSDate() },
    rates === undefined ? {} : { rates },
  );
  for (const t of history) feed.add('all', t);
  return collect(feed);
}

/** The tables, the journal's rows, files (as given and streamed) and manifest of a fed run. */
async function collect(feed: ReturnType<typeof createGainsFeed>): Promise<JournalRun> {
  const tables: Record<string, Row[]> = {};
  for (const table of feed.tables()) {
    const rows: Row[] = [];
    for await (const row of table.rows()) rows.push(row);
    tables[table.spec.name] = rows;
  }
  const journal = feed.journal();
  if (journal === null) throw new Error('no journal');
  const streamed: Record<string, string> = {};
  for (const output of await journal.outputs()) {
    if ('body' in output) streamed[output.name] = String(output.body);
    else {
      let text = '';
      for await (const chunk of output.chunks) text += chunk;
      streamed[output.name] = text;
    }
  }
  const entries: JournalEntry[] = [];
  for await (const entry of journal.entries()) entries.push(entry);
  return {
    rows: tables.journal ?? [],
    entries,
    files: await journal.files(),
    streamed,
    manifest: journal.manifest(),
    tables,
  };
}

/**
 * Runs the journal of `history` for `period` as a run at `now` would (only the transactions
 * before `now` in the data; HMRC identification's 30 days after the period cut at `now`).
 */
export async function runJournalAt(
  history: readonly CanonicalTransaction[],
  period: string | { from: string; to: string },
  now: string,
  extra: Record<string, unknown> = {},
): Promise<JournalRun> {
  const request = parseExportRequest({ profile: 'acme', period, reports: ['journal'], ...extra });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(
    request,
    { start: range.start.toJSDate(), end: range.end.toJSDate() },
    { now: () => new Date(now) },
  );
  for (const t of history) if (Date.parse(t.date) < Date.parse(now)) feed.add('all', t);
  return collect(feed);
}
