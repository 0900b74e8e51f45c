/**
 * Builds the journal's entries from the gains engine as it runs: the engine tells its observer
 * every movement of carrying value (lots opened, consumed, moved, withdrawn), and the builder
 * posts them, one entry per transaction (or rolled up per month and account), balanced in the
 * reporting currency to its minor unit. Asset accounts are posted by the change of their rounded
 * carrying value: the exact cost of each of the engine's pools the account holds (a wallet's, when
 * pooled by account) rounded once, added up, as the holdings report shows its rows
 * (docs/accountant/rounding.md); what a rounding leaves over goes to the rounding account, never lost.
 */
import { Big, text, ZERO } from '../domain/index.ts';
import type { BasisMove, DisposalLine, GainsEvent, GainsObserver, PoolPosition } from '../gains/index.ts';
import { heldAtPoolCost, type MatchedAhead } from '../gains/index.ts';
import type { Chart } from './chart.ts';
import { ChartError, UnbalancedEntryError } from './errors.ts';
import type { Account, JournalEntry, Posting } from './types.ts';

/** One asset account's holding of one token, as the journal carries it. */
export interface Holding {
  account: Account;
  token: string;
  quantity: Big;
  /** Exact carrying value. */
  cost: Big;
  /** Exact carrying value per pool of the engine (its account, or one for the token: `(none)`). */
  pools: Map<string, Big>;
  /** What the journal has posted: each pool's cost rounded to the minor unit, added up. */
  posted: Big;
}

/** The balances of the asset accounts at one month end, per account and token. */
export interface MonthEnd {
  /** Last local day of the month, `YYYY-MM-DD`; of the period's last month, the period's last day. */
  date: string;
  holdings: { account: Account; token: string; quantity: string; cost: string }[];
}

/** What the builder needs besides the observer's calls. */
export interface EntriesOptions {
  chart: Chart;
  /** Rounds an exact amount to the reporting currency's minor unit (read when first needed). */
  round: (amount: Big) => Big;
  /** An amount already at the minor unit as written (`438400.00`, with the unit's decimals). */
  show: (amount: Big) => string;
  /** The reporting currency. */
  currency: () => string;
  /** Local `YYYY-MM-DD` of an instant in the report zone. */
  localDate: (time: number) => string;
  /** The period's local months in order, `YYYY-MM`, and its first day. */
  months: readonly string[];
  startDate: string;
  /**
   * The period's last local day, `YYYY-MM-DD`: its last month closes on it (a tax year ending on
   * 5 April), before the days after it that a lot method reads (HMRC identification's 30 days).
   */
  endDate: string;
  /** The engine's open positions now (for the opening balances). */
  positions: () => PoolPosition[];
  /**
   * Whether the engine pools by account now (absent: never), and its positions as they are
   * (read when it starts to, wallet by wallet from 2025: the pools' costs are taken afresh).
   */
  pools?: { byAccount: () => boolean; now: () => PoolPosition[] };
  /** `false`: one entry per transaction; `true`: one per month. */
  rollup: boolean;
  /** Each finished entry, in date order. */
  emit: (entry: JournalEntry) => void;
  /** Each closed month's asset balances, in order (balance assertions and the tie-out). */
  monthEnd: (end: MonthEnd) => void;
  /**
   * Whether a disposal of transaction `txId` at leg `leg` is a fee paid in a token (the event
   * adapter puts it one past the transaction's movements).
   */
  isTokenFee: (txId: string, leg: number) => boolean;
  /**
   * Whether a disposal of transaction `txId` at leg `leg` is tokens spent on goods or services (a
   * transaction of category `expense`): its value is debited to the spent account, not to cash
   * clearing, since no money came in. Absent: none is.
   */
  isSpent?: (txId: string, leg: number) => boolean;
  /**
   * HMRC identification: each token's pool and what the 30-day rule took ahead of local day `date`
   * (the engine's state now, as for the month-end tie-out); absent or empty: nothing ahead.
   */
  matchedAhead?: (date: string) => MatchedAhead[];
}

/** The builder: an observer for the engine, and `finish` once the engine has finished. */
export interface EntriesBuilder {
  readonly observer: GainsObserver;
  /** Closes the open entry and every month left through the period's last. */
  finish(): void;
  /** Totals of the journal's postings per account code (debit − credit), for the tie-out. */
  totals(): Map<string, { account: Account; net: Big }>;
  /** Income credited per category (rounded values), for the tie-out with the income report. */
  income(): Map<string, Big>;
  /** Transactions whose income or deposit went to the unclassified account. */
  unclassified(): number;
  /** Entries and postings written. */
  counts(): { entries: number; postings: number };
}

const NO_WALLET = '(none)';

/** One line of an entry before it is finished. */
interface Draft {
  account: Account;
  /** Signed: positive is a debit. */
  amount: Big;
  quantity?: Big;
  token?: string;
  txId: string;
}

/** What a month end moves to an asset account from the 30-day account (see `aheadShifts`). */
interface Shift {
  holding: Holding;
  shift: Big;
  ahead: MatchedAhead;
}

/** The entry being assembled: the moves of one transaction. */
interface Open {
  txId: string;
  date: string;
  lines: Draft[];
  words: string[];
  /** Asset changes per holding key, summed over the transaction: posted once each. */
  assets: Map<string, { before: Big; quantity: Big; txId: string }>;
  /** Moves whose fiat fee went into a gain or a cost (a token fee is then no fee expense). */
  feeUsed: boolean;
  /** Token-fee disposals waiting for `feeUsed` to be known: their value's debit. */
  tokenFees: { value: Big; txId: string }[];
  /** Legs moved between own wallets: a disposal of the same leg is what the transfer lost on the way. */
  moved: Set<number>;
}

/** Creates a builder (see {@link EntriesBuilder}). */
export function createEntriesBuilder(options: EntriesOptions): EntriesBuilder {
  const { chart } = options;
  const holdings = new Map<string, Holding>();
  const totals = new Map<string, { account: Account; net: Big }>();
  let opened = false;
  let monthIndex = 0;
  let open: Open | null = null;
  let sequence = 0;
  let postings = 0;
  const rolled = new Map<string, Draft>();
  const rolledTx = new Set<string>();
  const incomeByCategory = new Map<string, Big>();
  let unclassified = 0;
  /** HMRC identification: gains posted by a day's earlier disposals of a token (see `disposalGain`). */
  const shared = new Map<string, Big>();

  const holdingOf = (token: string, wallet: string): Holding => {
    const account = chart.asset(token, chart.perWallet ? wallet : NO_WALLET);
    const key = `${account.code}\u0000${token}`;
    let found = holdings.get(key);
    if (found === undefined) {
      found = { account, token, quantity: ZERO, cost: ZERO, pools: new Map(), posted: ZERO };
      holdings.set(key, found);
    }
    return found;
  };

  const money = (amount: Big) => options.round(amount);
  /** Whether the pools were per account when last seen (see `repool`). */
  let byAccount = false;
  const poolOf = (wallet: string | null) => (byAccount && wallet !== null ? wallet : NO_WALLET);
  /** Adds `cost` to `h`'s pool of `wallet`. */
  const addToPool = (h: Holding, wallet: string | null, cost: Big) => {
    const key = poolOf(wallet);
    h.pools.set(key, (h.pools.get(key) ?? ZERO).plus(cost));
  };
  /** The carrying value as posted: each pool's cost rounded once, added up. */
  const postedOf = (h: Holding) => {
    let sum = ZERO;
    for (const cost of h.pools.values()) sum = sum.plus(money(cost));
    return sum;
  };
  /**
   * When the engine starts to pool by account (wallet by wallet from 2025), the pools' costs are
   * taken afresh from its positions: the change of the rounding is posted with the next entry.
   */
  const repool = () => {
    const now = options.pools?.byAccount() ?? false;
    if (now === byAccount) return;
    byAccount = now;
    for (const h of holdings.values()) h.pools.clear();
    for (const p of options.pools?.now() ?? [])
      addToPool(holdingOf(p.token, p.account ?? NO_WALLET), p.account, new Big(p.cost));
  };

  /** The opening balances: the engine's positions when the period starts, one entry. */
  const openPeriod = () => {
    opened = true;
    byAccount = options.pools?.byAccount() ?? false;
    const lines: Draft[] = [];
    for (const p of options.positions()) {
      const h = holdingOf(p.token, p.account ?? NO_WALLET);
      h.quantity = h.quantity.plus(p.quantity);
      h.cost = h.cost.plus(p.cost);
      addToPool(h, p.account, new Big(p.cost));
    }
    for (const h of holdings.values()) h.posted = postedOf(h);
    // Bed and breakfast across the start: the tokens held at the pool's average cost, as the
    // previous period's journal closed them; the day's reversal brings the buy-back's cost in.
    const shifts = aheadShifts(options.startDate);
    let total = ZERO;
    for (const h of holdings.values()) {
      const amount = h.posted.plus(shifts.get(h)?.shift ?? ZERO);
      if (h.quantity.eq(0) && amount.eq(0)) continue;
      lines.push({ account: h.account, amount, quantity: h.quantity, token: h.token, txId: '' });
      total = total.plus(amount);
    }
    if (lines.length > 0) {
      lines.push({ account: chart.account('opening'), amount: total.neg(), txId: '' });
      write(options.startDate, [], 'Opening balances of the digital assets at carrying value', lines);
    }
    // Even with no opening line (every token of the pool sold and matched ahead): the account
    // then holds nothing, and the reversal brings the cost the sales took ahead.
    reverseShifts(options.startDate, 'the previous period', shifts);
  };

  /**
   * HMRC identification, at a month end (or the period's start, `date` the local day after it)
   * between a disposal and the later acquisition the 30-day rule matched it with: per holding, what
   * moves from the 30-day account to the asset so that it holds the tokens held at the pool's
   * average cost (see lib/gains/rules/uk/bed-and-breakfast.ts). The holdings' `posted` stay the cost as matched.
   */
  const aheadShifts = (date: string): Map<Holding, Shift> => {
    const out = new Map<Holding, Shift>();
    for (const ahead of options.matchedAhead?.(date) ?? []) {
      const held = heldAtPoolCost(ahead);
      if (held === null) continue;
      const holding = holdingOf(ahead.token, ahead.account ?? NO_WALLET);
      const shift = money(held).minus(holding.posted);
      if (!shift.eq(0)) out.set(holding, { holding, shift, ahead });
    }
    return out;
  };

  /** The month-end adjustment in words (its amounts are at the minor unit already). */
  const aheadWords = (shifts: Map<Holding, Shift>) => {
    const ccy = options.currency();
    const at = (amount: Big) => `${options.show(money(amount))} ${ccy}`;
    const each = [...shifts.values()].map(
      ({ holding, shift, ahead }) =>
        `${text(ahead.aheadQuantity)} ${holding.token} sold are matched with acquisitions to come costing ${at(ahead.aheadCost)}: the ${text(holding.quantity)} ${holding.token} held stay at the pool's average cost ${at(holding.posted.plus(shift))}, and the ${at(shift.abs())} by which the sales' cost ${shift.gt(0) ? "exceeds the pool's is credited to" : "falls short of the pool's is debited to"} ${chart.account('thirty-day').code}`,
    );
    return `30-day rule (bed and breakfast) at the month end: ${each.join('; ')}`;
  };

  /**
   * Reverses a month end's adjustment the next day: the asset accounts again at the cost the
   * disposals took as matched. When the month's journal was made before its 30 days were over (the
   * disposal at its provisional cost), this is the correction to the final cost.
   */
  const reverseShifts = (date: string, which: string, shifts: Map<Holding, Shift>) => {
    if (shifts.size === 0) return;
    write(
      date,
      [],
      `30-day rule (bed and breakfast): the month-end adjustment of ${which} reversed, the disposals at their cost as matched with the acquisitions to come (the correction of their provisional cost if that month's journal was made before their 30 days were over)`,
      shiftLines(shifts, 'reverse'),
      false,
    );
  };

  /** The lines of a month end's adjustment (`'post'`) or of its reversal (`'reverse'`). */
  const shiftLines = (shifts: Map<Holding, Shift>, way: 'post' | 'reverse'): Draft[] =>
    [...shifts.values()].flatMap(({ holding, shift }) => {
      const toAsset = way === 'post' ? shift : shift.neg();
      return [
        { account: holding.account, amount: toAsset, quantity: ZERO, token: holding.token, txId: '' },
        { account: chart.account('thirty-day'), amount: toAsset.neg(), txId: '' },
      ];
    });

  const write = (date: string, txIds: string[], description: string, given: Draft[], roll = true) => {
    // Nothing to post (a move between wallets of one account, a value of zero): no line.
    const lines = signed(given).filter((line) => !line.amount.eq(0) || !(line.quantity ?? ZERO).eq(0));
    if (lines.length === 0) return;
    const balance = lines.reduce((sum, line) => sum.plus(line.amount), ZERO);
    if (!balance.eq(0)) {
      // Left over from rounding each line once: posted, never lost.
      lines.push({ account: chart.account('rounding'), amount: balance.neg(), txId: txIds[0] ?? '' });
    }
    for (const line of lines) {
      const t = totals.get(line.account.code) ?? { account: line.account, net: ZERO };
      t.net = t.net.plus(line.amount);
      totals.set(line.account.code, t);
    }
    if (roll && options.rollup && txIds.length > 0) {
      for (const line of lines) rollLine(line);
      for (const id of txIds) rolledTx.add(id);
      return;
    }
    emit(date, txIds, description, lines);
  };

  const emit = (date: string, txIds: string[], description: string, lines: Draft[]) => {
    sequence += 1;
    const id = `J${String(sequence).padStart(6, '0')}`;
    const entry: JournalEntry = { id, date, txIds, description, postings: lines.map(posting) };
    const sum = entry.postings.reduce((s, p) => s.plus(p.debit).minus(p.credit), ZERO);
    if (!sum.eq(0)) throw new UnbalancedEntryError(id, text(sum));
    postings += entry.postings.length;
    options.emit(entry);
  };

  const posting = (line: Draft): Posting => {
    const amount = line.amount.abs();
    const shown = options.show(options.round(amount));
    const out: Posting = {
      account: line.account,
      debit: line.amount.gt(0) ? shown : '0',
      credit: line.amount.lt(0) ? shown : '0',
      currency: options.currency(),
      ...(line.txId === '' ? {} : { txId: line.txId }),
    };
    if (line.token !== undefined && line.quantity !== undefined) {
      out.token = line.token;
      out.quantity = text(line.quantity);
      if (!line.quantity.eq(0))
        out.costPerUnit = text(amount.div(line.quantity.abs()).round(18, Big.roundHalfEven));
    }
    return out;
  };

  /** Rolled up: one line per account, token and side for the month. */
  const rollLine = (line: Draft) => {
    const side = line.amount.gte(0) ? 'dr' : 'cr';
    const key = `${line.account.code}\u0000${line.token ?? ''}\u0000${side}`;
    const found = rolled.get(key);
    if (found === undefined) {
      rolled.set(key, { ...line, txId: '' });
      return;
    }
    found.amount = found.amount.plus(line.amount);
    if (line.quantity !== undefined) found.quantity = (found.quantity ?? ZERO).plus(line.quantity);
  };

  const closeMonth = () => {
    const month = options.months[monthIndex] as string;
    const date = monthEndDate(month, options.endDate);
    if (options.rollup && rolled.size > 0) {
      const lines = signed([...rolled.values()]).filter(
        (line) => !line.amount.eq(0) || !(line.quantity ?? ZERO).eq(0),
      );
      const ids = [...rolledTx];
      rolled.clear();
      rolledTx.clear();
      emit(date, ids, `Digital assets of ${month}, ${ids.length} transactions rolled up per account`, lines);
    }
    const shifts = aheadShifts(nextDay(date));
    if (shifts.size > 0) {
      const last = monthIndex + 1 === options.months.length;
      write(
        date,
        [],
        `${aheadWords(shifts)}; reversed on ${nextDay(date)}${last ? ', in the next period' : ''}`,
        shiftLines(shifts, 'post'),
        false,
      );
    }
    options.monthEnd({
      date,
      holdings: [...holdings.values()].map((h) => ({
        account: h.account,
        token: h.token,
        quantity: text(h.quantity),
        cost: text(h.posted.plus(shifts.get(h)?.shift ?? ZERO)),
      })),
    });
    // The next period's opening shows the shift again and reverses it on its first day.
    if (monthIndex + 1 < options.months.length) reverseShifts(nextDay(date), date, shifts);
    monthIndex += 1;
  };

  /** Closes the months before `date`'s; every month left once `date` is past the period. */
  const closeBefore = (date: string) => {
    const past = date > options.endDate;
    while (
      monthIndex < options.months.length &&
      (past || (options.months[monthIndex] as string) < date.slice(0, 7))
    )
      closeMonth();
  };

  const flush = () => {
    if (open === null) return;
    const o = open;
    open = null;
    for (const fee of o.tokenFees) {
      // Gas paid in a token: its value is inside another leg's gain or cost when the transaction's
      // fiat fee went there; otherwise (a transfer) it is an expense.
      o.lines.push({ account: chart.account(o.feeUsed ? 'cash' : 'fee'), amount: fee.value, txId: fee.txId });
    }
    const assetLines: Draft[] = [];
    repool();
    for (const [key, change] of o.assets) {
      const h = holdings.get(key) as Holding;
      const posted = postedOf(h);
      const amount = posted.minus(h.posted);
      h.posted = posted;
      if (amount.eq(0) && change.quantity.eq(0)) continue;
      assetLines.push({
        account: h.account,
        amount,
        quantity: change.quantity,
        token: h.token,
        txId: change.txId,
      });
    }
    write(o.date, [o.txId], o.words.join('; '), [...assetLines, ...o.lines]);
  };

  const change = (o: Open, h: Holding, wallet: string, quantity: Big, cost: Big, txId: string) => {
    const key = `${h.account.code}\u0000${h.token}`;
    const found = o.assets.get(key) ?? { before: h.posted, quantity: ZERO, txId };
    found.quantity = found.quantity.plus(quantity);
    o.assets.set(key, found);
    h.quantity = h.quantity.plus(quantity);
    h.cost = h.cost.plus(cost);
    addToPool(h, wallet, cost);
  };

  const entryFor = (move: BasisMove): Open => {
    if (open !== null && open.txId === move.txId) return open;
    flush();
    open = {
      txId: move.txId,
      date: options.localDate(move.time),
      lines: [],
      words: [],
      assets: new Map(),
      feeUsed: false,
      tokenFees: [],
      moved: new Set(),
    };
    return open;
  };

  /**
   * The gain posted for a disposal: its lines' rounded gains. HMRC identification matches a day's
   * disposals of a token as one, with lines for the day: the day's earlier disposals post their own
   * gain (`move.gain`) and its last the rest of the lines' gains, so the journal's total is theirs.
   */
  const disposalGain = (move: BasisMove): Big => {
    if (move.gain !== undefined) {
      const own = money(new Big(move.gain));
      shared.set(move.token, (shared.get(move.token) ?? ZERO).plus(own));
      return own;
    }
    const earlier = shared.get(move.token) ?? ZERO;
    shared.delete(move.token);
    return lineGains(move.lines ?? [], money).minus(earlier);
  };

  /** The spent account; a numbered chart without it is refused naming the first such transaction. */
  const spentAccount = (txId: string): Account => {
    try {
      return chart.account('spent');
    } catch (error) {
      if (!(error instanceof ChartError)) throw error;
      throw new ChartError(error.field, `${error.reason} (the first: transaction ${txId})`, { cause: error });
    }
  };

  const basis = (move: BasisMove) => {
    if (!move.reported) return;
    const o = entryFor(move);
    const ccy = options.currency();
    const at = (amount: Big) => `${options.show(money(amount))} ${ccy}`;
    const quantity = new Big(move.quantity);
    const cost = new Big(move.cost);
    const fee = new Big(move.fee ?? 0);
    const cash = chart.account('cash');
    switch (move.kind) {
      case 'acquire': {
        const value = new Big(move.value ?? 0);
        change(o, holdingOf(move.token, move.account), move.account, quantity, cost, move.txId);
        const income = move.income ?? null;
        const incomeAccount = income === null ? null : chart.income(income);
        const external = move.external === true && income === null;
        const credit =
          income !== null
            ? (incomeAccount ?? chart.account('unclassified'))
            : external
              ? chart.account('unclassified')
              : cash;
        o.lines.push({ account: credit, amount: money(value).neg(), txId: move.txId });
        if (income !== null)
          incomeByCategory.set(income, (incomeByCategory.get(income) ?? ZERO).plus(money(value)));
        if (credit.kind === 'unclassified') unclassified += 1;
        if (fee.gt(0)) {
          o.feeUsed = true;
          o.lines.push({ account: cash, amount: money(fee).neg(), txId: move.txId });
          if (move.feeIsExpense === true)
            o.lines.push({ account: chart.account('fee'), amount: money(fee), txId: move.txId });
        }
        o.words.push(
          income !== null
            ? `income (${income}): ${move.quantity} ${move.token} received in ${move.account}, worth ${at(value)}${incomeAccount === null ? ` (category "${income}" not in the chart: unclassified)` : ''}`
            : external
              ? `${move.quantity} ${move.token} deposited into ${move.account} from outside the portfolio, worth ${at(value)} (unclassified: to be reviewed)`
              : `acquired ${move.quantity} ${move.token} in ${move.account} for ${at(value)}${fee.gt(0) ? `, fee ${at(fee)}` : ''}`,
        );
        break;
      }
      case 'dispose': {
        const value = new Big(move.value ?? 0);
        change(o, holdingOf(move.token, move.account), move.account, quantity.neg(), cost.neg(), move.txId);
        const gain = disposalGain(move);
        if (!gain.eq(0))
          o.lines.push({
            account: chart.account(gain.gt(0) ? 'gain' : 'loss'),
            amount: gain.neg(),
            txId: move.txId,
          });
        // Sent more than arrived: the difference is a fee taken from the amount, spent, not sold.
        const lost = o.moved.has(move.leg);
        if (lost || options.isTokenFee(move.txId, move.leg)) {
          o.tokenFees.push({ value: money(value), txId: move.txId });
          o.words.push(
            lost
              ? `${move.requested} ${move.token} from ${move.account} lost on the way (a fee taken from the amount), worth ${at(value)}`
              : `fee paid in ${move.requested} ${move.token} from ${move.account}, worth ${at(value)}`,
          );
          break;
        }
        // Spent on goods or services: what was bought is the expense, at the tokens' value (the
        // disposal's gain as for a sale); a fiat fee is still paid through cash clearing.
        const spent = options.isSpent?.(move.txId, move.leg) === true;
        o.lines.push({
          account: spent ? spentAccount(move.txId) : cash,
          amount: money(value),
          txId: move.txId,
        });
        if (fee.gt(0)) {
          o.feeUsed = true;
          o.lines.push({ account: cash, amount: money(fee).neg(), txId: move.txId });
        }
        o.words.push(
          spent
            ? `spent ${move.requested} ${move.token} from ${move.account} on goods or services worth ${at(value)}${fee.gt(0) ? `, fee ${at(fee)} (a cost of the disposal)` : ''}, carrying value ${at(cost)}, ${gain.gte(0) ? 'gain' : 'loss'} ${at(gain.abs())}`
            : `disposed of ${move.requested} ${move.token} from ${move.account} for ${at(value)}${fee.gt(0) ? ` less fee ${at(fee)}` : ''}, carrying value ${at(cost)}, ${gain.gte(0) ? 'gain' : 'loss'} ${at(gain.abs())}`,
        );
        break;
      }
      case 'move': {
        o.moved.add(move.leg);
        const to = move.to ?? move.account;
        change(o, holdingOf(move.token, move.account), move.account, quantity.neg(), cost.neg(), move.txId);
        change(o, holdingOf(move.token, to), to, new Big(move.requested), cost.plus(fee), move.txId);
        if (fee.gt(0)) o.lines.push({ account: cash, amount: money(fee).neg(), txId: move.txId });
        o.words.push(
          `moved ${move.requested} ${move.token} from ${move.account} to ${to} (own wallets) at carrying value ${at(cost)}${fee.gt(0) ? `, fee ${at(fee)} added to it` : ''}`,
        );
        break;
      }
      case 'withdraw': {
        const h = holdingOf(move.token, move.account);
        const before = postedOf(h);
        change(o, h, move.account, quantity.neg(), cost.neg(), move.txId);
        // The carrying value as posted: the asset's rounded change, so no rounding line is needed.
        const removed = before.minus(postedOf(h));
        o.lines.push({ account: chart.account('transfer-out'), amount: removed, txId: move.txId });
        o.words.push(
          `sent ${move.requested} ${move.token} from ${move.account} out of the portfolio at carrying value ${at(cost)}`,
        );
        break;
      }
    }
  };

  const observer: GainsObserver = {
    event(event: GainsEvent, reported: boolean) {
      if (!reported) {
        // An event after the period (read for the period's sake): the period's months close first.
        if (options.localDate(event.time) > options.endDate) {
          if (!opened) openPeriod();
          flush();
          closeBefore(options.localDate(event.time));
        }
        return;
      }
      if (!opened) openPeriod();
      const date = options.localDate(event.time);
      if (open !== null && open.txId !== event.txId) flush();
      closeBefore(date);
    },
    basis,
    settled(date: string) {
      // HMRC identification: the days before `date` are told; the positions are those of its start.
      if (!opened && date >= options.startDate) openPeriod();
      if (!opened) return;
      flush();
      closeBefore(date);
    },
  };

  return {
    observer,
    finish() {
      if (!opened) openPeriod();
      flush();
      while (monthIndex < options.months.length) closeMonth();
    },
    totals: () => totals,
    income: () => incomeByCategory,
    unclassified: () => unclassified,
    counts: () => ({ entries: sequence, postings }),
  };
}

/**
 * The lines with a token line whose value has the other sign than its quantity split in two: the
 * tokens at no cost, and the value on a line of its own in the same account. The journals write a
 * token at its total cost (`@@`, `{{…}}`), which takes the quantity's sign. It happens under HMRC
 * identification: the same-day rule matches a fee paid in a token with the day's dearer acquisition
 * (value in, tokens out), and the holdings are negative in value while a disposal waits for the
 * acquisition the 30-day rule matched it with.
 */
function signed(lines: readonly Draft[]): Draft[] {
  return lines.flatMap((line) => {
    if (line.quantity === undefined || !line.amount.times(line.quantity).lt(0)) return [line];
    const { amount, quantity, ...rest } = line;
    const { token: _token, ...money } = rest;
    return [
      { ...rest, amount: ZERO, quantity },
      { ...money, amount },
    ];
  });
}

/** The gain of a disposal as the reports show it: the sum of its lines' rounded gains. */
export function lineGains(lines: readonly DisposalLine[], round: (amount: Big) => Big): Big {
  return lines.reduce(
    (sum, line) => sum.plus(round(new Big(line.proceeds)).minus(round(new Big(line.cost)))),
    ZERO,
  );
}

/** The local day after `YYYY-MM-DD`. */
export function nextDay(date: string): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
}

/** The day a month of the period closes on: its last day, or the period's last day if earlier. */
export function monthEndDate(month: string, periodEnd: string): string {
  const last = lastDay(month);
  return periodEnd < last ? periodEnd : last;
}

/** The last day of a `YYYY-MM` month. */
export function lastDay(month: string): string {
  const [year, m] = month.split('-').map(Number) as [number, number];
  const days = new Date(Date.UTC(year, m, 0)).getUTCDate();
  return `${month}-${String(days).padStart(2, '0')}`;
}
