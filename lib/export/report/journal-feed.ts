/**
 * The journal report's feed: watches the gains engine while the snapshot is written (as its
 * observer), spools the entries, compares the journal with the reports (realised gains with the
 * disposals, income with the income report, each month end's asset balances with the engine's
 * positions) and hands out the `journal` table and the files of the requested ledger formats.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import type { CanonicalTransaction, TableSource } from '../../domain/index.ts';
import { Big, text, ZERO } from '../../domain/index.ts';
import { lookupRate, type RateTable } from '../../fx/index.ts';
import type {
  DisposalLine,
  GainsEngine,
  GainsMoney,
  GainsObserver,
  IncomeLine,
  MatchedAhead,
  PoolPosition,
} from '../../gains/index.ts';
import { DEFAULT_FIAT_SYMBOLS, heldAtPoolCost, localDate, lotMethod } from '../../gains/index.ts';
import type {
  Account,
  BalanceAssertion,
  JournalEntry,
  LedgerFile,
  LedgerFormat,
  LedgerFormatContext,
  LedgerStream,
} from '../../ledger/index.ts';
import {
  createChart,
  createEntriesBuilder,
  type EntriesBuilder,
  JOURNAL_SPEC,
  journalRows,
  ledgerFormat,
  type MonthEnd,
  type TieOutDifference,
  TieOutError,
} from '../../ledger/index.ts';
import type { ExportRequest } from '../plan/request.ts';
import { readNdjsonLines } from '../snapshot/snapshot.ts';

/** The event adapter's fee categories (its default `feeCategories`, which an export keeps). */
const FEE_CATEGORIES: ReadonlySet<string> = new Set(['fee']);

/** Categories whose out movements are tokens spent on goods or services (the spent account). */
const SPENT_CATEGORIES: ReadonlySet<string> = new Set(['expense']);

/** One check of the tie-out, as the manifest records it. */
export interface TieOutCheck {
  check: string;
  /** How many figures were compared. */
  compared: number;
  ok: boolean;
}

/** What the manifest records of a journal. */
export interface JournalManifest {
  formats: string[];
  rollup: boolean;
  currency: string;
  entries: number;
  postings: number;
  /** Transactions whose income or deposit went to the unclassified account (to review). */
  unclassified: number;
  totals: {
    /** Realised gain net of losses, as posted (= the disposals report's total). */
    realisedGain: string;
    /** Income per category, as posted (= the income report). */
    income: Record<string, string>;
    /** Debit − credit per account code over the period. */
    accounts: Record<string, string>;
  };
  checks: TieOutCheck[];
}

/** The journal's part in a run (see the module comment). */
export interface JournalFeed {
  readonly observer: GainsObserver;
  /** The engine the observer watches: its positions and options (call once, before any event). */
  attach(engine: GainsEngine, money: () => GainsMoney): void;
  /** Each transaction as the gains feed gets it (notes which of its legs is a fee in a token). */
  see(tx: CanonicalTransaction): void;
  /** The rounded disposal and income lines the gains reports got: the other side of the tie-out. */
  report(disposals: readonly DisposalLine[], income: readonly IncomeLine[]): void;
  /** After the engine finished: closes the journal and ties it out (throws {@link TieOutError}). */
  finish(): void;
  table(): TableSource;
  /** The entries in order, read back from the spool (after {@link JournalFeed.finish}). */
  entries(): AsyncIterable<JournalEntry>;
  /** The requested formats' files (the generic CSV is the table), the entries read into memory. */
  files(): Promise<LedgerFile[]>;
  /** The same, streamed from the spool by the formats that can (the others read it into memory). */
  outputs(): Promise<(LedgerFile | LedgerStream)[]>;
  manifest(): JournalManifest;
}

/** Entries kept in a JSON-lines spool (or in memory), read back in order. */
function entryStore(spoolDir: string | undefined) {
  const kept: JournalEntry[] = [];
  const file = spoolDir === undefined ? null : join(spoolDir, 'journal-entries.jsonl');
  if (file !== null) appendFileSync(file, '');
  return {
    add(entry: JournalEntry) {
      if (file === null) kept.push(entry);
      else appendFileSync(file, `${JSON.stringify(entry)}\n`);
    },
    async *read(): AsyncGenerator<JournalEntry> {
      if (file === null) {
        yield* kept;
        return;
      }
      for await (const line of readNdjsonLines(file)) yield JSON.parse(line) as JournalEntry;
    },
  };
}

/** Whether `leg` of `txId` is in `legs`; it is taken out (each leg is disposed of once). */
function takeLeg(legs: Map<string, Set<number>>, txId: string, leg: number): boolean {
  const found = legs.get(txId);
  if (found === undefined || !found.delete(leg)) return false;
  if (found.size === 0) legs.delete(txId);
  return true;
}

/** The local day after `YYYY-MM-DD`. */
function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The local months `YYYY-MM` of a period `[start, end)` in `zone`. */
export function periodMonths(start: Date, end: Date, zone: string): string[] {
  const months: string[] = [];
  let at = DateTime.fromJSDate(start, { zone }).startOf('month');
  const last = DateTime.fromMillis(end.getTime() - 1, { zone });
  while (at <= last) {
    months.push(at.toFormat('yyyy-MM'));
    at = at.plus({ months: 1 });
  }
  return months;
}

/**
 * A day's EUR rate from the ECB's table: units of `currency` per 1 EUR as published, on the
 * latest fixing at or before the day (the ECB publishes none on weekends and TARGET holidays).
 */
function ecbEurRate(table: RateTable): NonNullable<LedgerFormatContext['eurRate']> {
  return (currency, day) => {
    const quote = lookupRate(table, currency, day);
    return { rate: quote.perBase, of: quote.of };
  };
}

/** A feed for a request with `journal` (see {@link JournalFeed}). */
export function createJournalFeed(
  request: ExportRequest,
  period: { start: Date; end: Date },
  options: { spoolDir?: string; now?: () => Date; rates?: RateTable } = {},
): JournalFeed {
  const settings = request.journal;
  if (settings === undefined) throw new Error('createJournalFeed needs request.journal');
  const chart = createChart(settings.chart);
  const store = entryStore(options.spoolDir);
  /** The asset codes the chart changed once every wallet and token was met (see `Chart.renames`). */
  let renames = new Map<string, string>();
  const renamed = (account: Account): Account => {
    const code = renames.get(account.code);
    return code === undefined ? account : { ...account, code };
  };
  /** The entries as written: with the chart's final asset codes. */
  async function* entries(): AsyncGenerator<JournalEntry> {
    for await (const entry of store.read())
      yield renames.size === 0
        ? entry
        : { ...entry, postings: entry.postings.map((p) => ({ ...p, account: renamed(p.account) })) };
  }
  /** Per transaction, the legs whose disposal is a fee paid in a token (see `see`). */
  const tokenFeeLegs = new Map<string, Set<number>>();
  /** Per transaction, the legs whose disposal is tokens spent on goods or services (see `see`). */
  const spentLegs = new Map<string, Set<number>>();
  const balances: BalanceAssertion[] = [];
  const differences: TieOutDifference[] = [];
  const reported = { gain: ZERO, income: new Map<string, Big>() };
  const checks = { months: 0, holdings: 0 };
  let engine: GainsEngine | null = null;
  let money: (() => GainsMoney) | null = null;
  let builder: EntriesBuilder | null = null;
  let closed = false;

  const currency = () => money?.().currency ?? 'XXX';
  const round = (amount: Big) => new Big(money === null ? text(amount) : money().showBig(amount));

  /**
   * The holdings at the start of local day `date`: the engine's positions, less (HMRC
   * identification) what the 30-day rule took for an earlier disposal from an acquisition still to
   * come, which the section 104 pool still counts but the wallets no longer hold.
   */
  const heldAt = (e: GainsEngine, date: string): PoolPosition[] => [
    ...e.positions(),
    ...e.matchedAhead(date).map((p) => ({
      ...p,
      quantity: text(new Big(p.quantity).neg()),
      cost: text(new Big(p.cost).neg()),
    })),
  ];

  /**
   * HMRC identification: each pool with what the 30-day rule took ahead of local day `date`, for
   * the journal's bed-and-breakfast entries at a month end (lib/gains/rules/uk/bed-and-breakfast.ts).
   */
  const aheadOf = (e: GainsEngine, date: string): MatchedAhead[] => {
    const ahead = e.matchedAhead(date);
    if (ahead.length === 0) return [];
    const key = (token: string, account: string | null) => JSON.stringify([token, account]);
    const out = new Map<string, MatchedAhead>();
    const pool = (token: string, account: string | null) => {
      const found = out.get(key(token, account)) ?? {
        token,
        account,
        poolQuantity: ZERO,
        poolCost: ZERO,
        aheadQuantity: ZERO,
        aheadCost: ZERO,
      };
      out.set(key(token, account), found);
      return found;
    };
    for (const p of e.positions()) {
      const found = pool(p.token, p.account);
      found.poolQuantity = found.poolQuantity.plus(p.quantity);
      found.poolCost = found.poolCost.plus(p.cost);
    }
    for (const a of ahead) {
      const found = pool(a.token, a.account);
      found.aheadQuantity = found.aheadQuantity.plus(a.quantity);
      found.aheadCost = found.aheadCost.plus(a.cost);
    }
    return [...out.values()].filter((m) => m.aheadQuantity.gt(0));
  };

  /**
   * The engine's holdings mapped to the journal's asset accounts, by account and token: the
   * quantity exact, the cost each pool's (the holdings report's row) rounded once and added up.
   */
  const enginePositions = (e: GainsEngine, date: string) => {
    const out = new Map<string, { account: string; token: string; quantity: Big; cost: Big }>();
    const pools = new Map<string, { key: string; cost: Big }>();
    const add = (token: string, wallet: string | null, quantity: Big.BigSource, cost: Big.BigSource) => {
      const account = chart.asset(token, chart.perWallet ? (wallet ?? '(none)') : '(none)');
      const key = `${account.code}\u0000${token}`;
      const found = out.get(key) ?? { account: account.code, token, quantity: ZERO, cost: ZERO };
      found.quantity = found.quantity.plus(quantity);
      out.set(key, found);
      const poolKey = `${key}\u0000${wallet ?? ''}`;
      const pool = pools.get(poolKey) ?? { key, cost: ZERO };
      pool.cost = pool.cost.plus(cost);
      pools.set(poolKey, pool);
    };
    for (const p of heldAt(e, date)) add(p.token, p.account, p.quantity, p.cost);
    // Bed and breakfast: the tokens held at the pool's average cost, the rest on the 30-day account.
    for (const m of aheadOf(e, date)) {
      const held = heldAtPoolCost(m);
      if (held !== null) add(m.token, m.account, ZERO, held.minus(m.poolCost.minus(m.aheadCost)));
    }
    for (const pool of pools.values()) {
      const found = out.get(pool.key) as { cost: Big };
      found.cost = found.cost.plus(round(pool.cost));
    }
    return out;
  };

  /** A month end: the journal's balances against the holdings as the engine has them now. */
  const monthEnd = (end: MonthEnd) => {
    const e = engine as GainsEngine;
    const expected = enginePositions(e, nextDay(end.date));
    checks.months += 1;
    for (const h of end.holdings) {
      balances.push({
        date: end.date,
        account: h.account,
        token: h.token,
        quantity: h.quantity,
        cost: h.cost,
      });
      const key = `${h.account.code}\u0000${h.token}`;
      const want = expected.get(key);
      expected.delete(key);
      compareHolding(end.date, h.account.code, h.token, h.quantity, h.cost, want);
    }
    for (const want of expected.values()) compareHolding(end.date, want.account, want.token, '0', '0', want);
  };

  const compareHolding = (
    date: string,
    account: string,
    token: string,
    quantity: string,
    cost: string,
    want: { quantity: Big; cost: Big } | undefined,
  ) => {
    checks.holdings += 1;
    const wantQuantity = want?.quantity ?? ZERO;
    const wantCost = round(want?.cost ?? ZERO);
    if (!wantQuantity.eq(quantity))
      differences.push({
        check: `quantity at ${date}`,
        account,
        token,
        journal: quantity,
        report: text(wantQuantity),
        difference: text(new Big(quantity).minus(wantQuantity)),
      });
    if (!wantCost.eq(cost))
      differences.push({
        check: `carrying value at ${date}`,
        account,
        token,
        journal: cost,
        report: text(wantCost),
        difference: text(new Big(cost).minus(wantCost)),
      });
  };

  const observer: GainsObserver = {
    event: (event, isReported) => builder?.observer.event?.(event, isReported),
    basis: (move) => builder?.observer.basis(move),
    settled: (date) => builder?.observer.settled?.(date),
  };

  const journalTotals = () => {
    const accounts = builder?.totals() ?? new Map();
    const gainCodes = new Set([chart.account('gain').code, chart.account('loss').code]);
    let gain = ZERO;
    for (const code of gainCodes) gain = gain.minus(accounts.get(code)?.net ?? ZERO);
    return { accounts, gain };
  };

  const tieOut = () => {
    const { gain } = journalTotals();
    if (!gain.eq(reported.gain))
      differences.push({
        check: 'realised gain (net of losses) against the disposals report',
        account: `${chart.account('gain').code} / ${chart.account('loss').code}`,
        journal: text(gain),
        report: text(reported.gain),
        difference: text(gain.minus(reported.gain)),
      });
    const posted = builder?.income() ?? new Map<string, Big>();
    for (const category of new Set([...posted.keys(), ...reported.income.keys()])) {
      const mine = posted.get(category) ?? ZERO;
      const theirs = reported.income.get(category) ?? ZERO;
      if (!mine.eq(theirs))
        differences.push({
          check: `income "${category}" against the income report`,
          account: (chart.income(category) ?? chart.account('unclassified')).code,
          journal: text(mine),
          report: text(theirs),
          difference: text(mine.minus(theirs)),
        });
    }
  };

  const readAll = async () => {
    const all: JournalEntry[] = [];
    for await (const entry of entries()) all.push(entry);
    return all;
  };
  // The generic CSV is the journal table itself (its CSV file and the Journal sheet).
  const formatsBeyondCsv = () =>
    settings.formats
      .filter((id) => id !== 'csv')
      .map((id) => ledgerFormat(id))
      .filter((format) => format !== undefined);
  /**
   * What a format needs besides the entries (its own settings block); the accounts and tokens are
   * known once closed.
   */
  const context = (format: LedgerFormat): LedgerFormatContext => {
    const zone = request.timeZone;
    const accounts = new Map<string, Account>();
    for (const t of builder?.totals().values() ?? []) accounts.set(t.account.code, t.account);
    for (const b of balances) if (!accounts.has(b.account.code)) accounts.set(b.account.code, b.account);
    const names = chart.names();
    return {
      currency: currency(),
      period: {
        start: localDate(period.start.getTime(), zone),
        end: localDate(period.end.getTime() - 1, zone),
      },
      settings: (settings.settings[format.id] ?? {}) as Record<string, unknown>,
      ...(options.now === undefined ? {} : { createdAt: options.now() }),
      balances: renames.size === 0 ? balances : balances.map((b) => ({ ...b, account: renamed(b.account) })),
      accounts: [...accounts.values()].map(renamed),
      tokens: [...new Set(balances.map((b) => b.token))],
      ...(names.length === 0 ? {} : { names }),
      ...(options.rates?.source === 'ecb' ? { eurRate: ecbEurRate(options.rates) } : {}),
    };
  };

  return {
    observer,
    attach(attached, moneyOf) {
      engine = attached;
      money = moneyOf;
      // The report's zone (the request's), even where a rule set computes its tax years in another.
      const zone = request.timeZone;
      builder = createEntriesBuilder({
        chart,
        round,
        show: (amount) => (money === null ? text(amount) : money().showBig(amount)),
        currency,
        localDate: (time) => localDate(time, zone),
        months: periodMonths(period.start, period.end, zone),
        startDate: localDate(period.start.getTime(), zone),
        endDate: localDate(period.end.getTime() - 1, zone),
        positions: () => heldAt(attached, localDate(period.start.getTime(), zone)),
        pools: { byAccount: () => attached.pooledByAccount(), now: () => attached.positions() },
        rollup: settings.rollup,
        emit: (entry) => store.add(entry),
        monthEnd,
        matchedAhead: (date) => aheadOf(attached, date),
        isTokenFee: (txId, leg) => takeLeg(tokenFeeLegs, txId, leg),
        isSpent: (txId, leg) => takeLeg(spentLegs, txId, leg),
      });
    },
    see(tx) {
      const isFiat = (symbol: string) =>
        DEFAULT_FIAT_SYMBOLS.includes(symbol) || symbol === tx.valueCurrency || symbol === tx.feeCurrency;
      const legs = new Set<number>();
      // A transaction of a fee category (the event adapter's `feeCategories`, `fee`): its out
      // movements are the fee itself (gas paid on its own), spent at their value: a fee expense,
      // not proceeds received.
      if (FEE_CATEGORIES.has(tx.category ?? ''))
        tx.movements.forEach((movement, index) => {
          if (!isFiat(movement.symbol) && new Big(movement.amount).lt(0)) legs.add(index);
        });
      // A fee paid in a token is the event one past the transaction's movements (gains/events.ts).
      const symbol = tx.feeSymbol;
      if (symbol !== null && tx.feeQuantity !== null && symbol !== tx.feeCurrency && !isFiat(symbol))
        legs.add(tx.movements.length);
      if (legs.size > 0) tokenFeeLegs.set(tx.id, legs);
      // Tokens spent on goods or services: their out movements are a disposal whose value is the
      // expense (the spent account), not proceeds received into cash clearing.
      if (SPENT_CATEGORIES.has(tx.category ?? '')) {
        const spent = new Set<number>();
        tx.movements.forEach((movement, index) => {
          if (!isFiat(movement.symbol) && new Big(movement.amount).lt(0)) spent.add(index);
        });
        if (spent.size > 0) spentLegs.set(tx.id, spent);
      }
    },
    report(disposals, income) {
      for (const line of disposals) reported.gain = reported.gain.plus(line.gain);
      for (const line of income)
        reported.income.set(line.category, (reported.income.get(line.category) ?? ZERO).plus(line.value));
    },
    finish() {
      if (closed) return;
      closed = true;
      builder?.finish();
      // Every wallet and token is met: the names made distinct, so that no order decides them.
      renames = chart.renames();
      tieOut();
      const [first, ...rest] = differences.map((d) => ({
        ...d,
        account: renames.get(d.account) ?? d.account,
      }));
      if (first !== undefined) throw new TieOutError([first, ...rest]);
    },
    table: () => ({
      spec: JOURNAL_SPEC,
      async *rows() {
        for await (const entry of entries()) yield* journalRows(entry);
      },
    }),
    entries,
    async files() {
      const all = await readAll();
      return formatsBeyondCsv().flatMap((format) => format.files(all, context(format)));
    },
    async outputs() {
      const out: (LedgerFile | LedgerStream)[] = [];
      let all: JournalEntry[] | null = null;
      for (const format of formatsBeyondCsv()) {
        if (format.stream !== undefined) out.push(...format.stream(entries(), context(format)));
        else {
          if (all === null) all = await readAll();
          out.push(...format.files(all, context(format)));
        }
      }
      return out;
    },
    manifest() {
      const { accounts, gain } = journalTotals();
      const shown = (amount: Big) => (money === null ? text(amount) : money().showBig(amount));
      const counts = builder?.counts() ?? { entries: 0, postings: 0 };
      return {
        formats: [...settings.formats],
        rollup: settings.rollup,
        currency: currency(),
        ...counts,
        unclassified: builder?.unclassified() ?? 0,
        totals: {
          realisedGain: shown(gain),
          income: Object.fromEntries(
            [...(builder?.income() ?? new Map<string, Big>())].map(([k, v]) => [k, shown(v)]),
          ),
          accounts: Object.fromEntries(
            [...accounts].map(([code, t]) => [renames.get(code) ?? code, shown(t.net)]),
          ),
        },
        checks: [
          { check: 'every entry balances to the minor unit', compared: counts.entries, ok: true },
          { check: 'realised gain equals the disposals report (gains summary)', compared: 1, ok: true },
          { check: 'income per category equals the income report', compared: reported.income.size, ok: true },
          {
            check: `asset balances (quantity and carrying value) at each of ${checks.months} month ends equal the holdings${engine === null ? '' : (lotMethod(engine.options.method).journal?.holdingsCheck ?? '')}`,
            compared: checks.holdings,
            ok: true,
          },
        ],
      };
    },
  };
}
