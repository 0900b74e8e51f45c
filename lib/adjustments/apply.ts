/**
 * Applying a profile's adjustments to the canonical transactions on their way to the gains
 * engine, one transaction at a time (the history arrives window by window and is never held
 * whole). The transactions the service sent are not changed: each adjusted one is a copy.
 *
 * - `spam`: the token's movements (and a fee paid in it) are dropped; a transaction left with
 *   nothing is dropped.
 * - `category`: the category is set (`airdrop` is income with sub-type `airdrop`; `lost` disposes
 *   of the out movements for nothing).
 * - `value`: the missing fiat value of a movement is set (a movement that has one is refused).
 * - `transfer-pair`: both sides become transfers, paired by the adapter whatever the time apart.
 * - `cost-basis`: the adapter opens the transfer in's lot at the cost (and date) given.
 * - `opening-lots`: each lot enters as a synthetic acquisition `adj:<id>:<n>` at its acquisition
 *   instant, before the first real transaction.
 * - `missing-lots`: each lot enters as a synthetic transfer in from outside `adj:<id>:<n>` with
 *   its cost and acquisition date, just before the disposal it covers, in its account.
 *
 * What an adjustment names must be in the data, and fit it; {@link AdjustmentsApplier.finish}
 * throws for a transaction or token never seen.
 */
import { Big, type CanonicalMovement, type CanonicalTransaction } from '../domain/index.ts';
import { DEFAULT_FIAT_SYMBOLS, type TransferInCost } from '../gains/index.ts';
import { AdjustmentMismatchError, UnknownReferenceError } from './errors.ts';
import type { Adjustment, AdjustmentsDocument, Lot } from './schema.ts';

/** Largest difference between what a hand-made pair's out side sent and its in side received: 1 % of what was sent. */
export const PAIR_QUANTITY_TOLERANCE = '0.01';

/** What an adjustment did to the run, in cheap measures (see README "Resolving warnings"). */
export interface AdjustmentEffect {
  adjustment: Adjustment;
  /** What it names: transaction ids and tokens. */
  names: string;
  /** The cost basis it gave (lots, a transfer in's cost), exact; `null` when none. */
  basis: string | null;
  /** The fiat value it set (proceeds of an out movement, cost or income of an in movement); `null` when none. */
  value: string | null;
  /** Movements it changed, dropped or added. */
  movements: number;
  /** What it did, in words. */
  effect: string;
}

/** The adapter options the adjustments give (see `AdapterOptions` in lib/gains/events.ts). */
export interface AdjustmentAdapterOptions {
  transferPairs: ReadonlyMap<string, string>;
  transferInCosts: ReadonlyMap<string, ReadonlyMap<string, TransferInCost>>;
}

/** Options of {@link createAdjustmentsApplier}. */
export interface ApplyOptions {
  /** The currency of the gains figures (the lots' costs are in it); absent: each lot takes the next transaction's. */
  currency?: string | null;
  /** Categories the adapter treats as transfers. Default `transfer`, `bridge`. */
  transferCategories?: readonly string[];
  /** Symbols that are fiat, never tokens. Default the adapter's. */
  fiatSymbols?: readonly string[];
}

/** The adjustments of one document, applied as the history streams past. */
export interface AdjustmentsApplier {
  /** For `createEventStream`: the hand-made pairs and the transfer ins' costs (filled in as the history passes). */
  readonly adapterOptions: AdjustmentAdapterOptions;
  /** The transactions to feed for `tx`, in order: the synthetic lots due before it, then `tx` adjusted (or not at all). */
  apply(tx: CanonicalTransaction): CanonicalTransaction[];
  /** The end of the history: checks that everything named was seen (throws `UnknownReferenceError`). */
  finish(): CanonicalTransaction[];
  /** What each adjustment did, in document order (complete after {@link finish}). */
  effects(): AdjustmentEffect[];
  /** The adjustments that name transaction `txId`, or else token `token` (for the warnings they answer). */
  namedBy(txId: string, token: string): string[];
}

/** A side of a hand-made pair as seen: the tokens it moves, by symbol, and its account. */
interface PairSide {
  quantities: Map<string, Big>;
  account: string | null;
}

const ADJUSTED_CATEGORY: Readonly<Record<string, { category: string; subType?: string }>> = {
  airdrop: { category: 'income', subType: 'airdrop' },
};

/** A copy of `tx` with some fields changed. */
function changed(tx: CanonicalTransaction, fields: Partial<CanonicalTransaction>): CanonicalTransaction {
  return { ...tx, ...fields };
}

/** The synthetic canonical transaction of one lot. */
function lotTransaction(
  id: string,
  lot: Lot,
  kind: 'opening' | 'missing',
  date: string,
  account: string | null,
  currency: string | null,
): CanonicalTransaction {
  const category = kind === 'opening' ? 'trade' : 'transfer';
  return {
    id,
    date,
    type: kind === 'opening' ? 'acquisition' : 'transfer',
    subType: kind === 'opening' ? 'opening-lot' : 'missing-lot',
    category,
    protocol: null,
    hash: null,
    accountId: account,
    ledgerId: null,
    movements: [{ symbol: lot.token, amount: lot.quantity, value: lot.cost, extras: {} }],
    valueAmount: lot.cost,
    valueCurrency: currency,
    feeAmount: null,
    feeCurrency: null,
    feeSymbol: null,
    feeQuantity: null,
    extras: {},
  };
}

/** What an adjustment names, for the Adjustments table. */
function namesOf(a: Adjustment): string {
  switch (a.kind) {
    case 'transfer-pair':
      return `${a.outTxId} → ${a.inTxId}`;
    case 'spam':
      return a.token;
    case 'opening-lots':
      return [...new Set(a.lots.map((lot) => lot.token))].join(', ');
    case 'cost-basis':
      return `${a.txId} ${a.token}`;
    case 'value':
      return a.token === undefined ? a.txId : `${a.txId} ${a.token}`;
    default:
      return a.txId;
  }
}

/** Whether `symbol` is a token of `tx` (not fiat). */
type IsToken = (tx: CanonicalTransaction, symbol: string) => boolean;

/** `tx` in the category `a` gives it (see the module comment); `effect` says so. */
function setCategory(
  tx: CanonicalTransaction,
  a: Extract<Adjustment, { kind: 'category' }>,
  effect: AdjustmentEffect,
  isToken: IsToken,
): CanonicalTransaction {
  const mapped = ADJUSTED_CATEGORY[a.category] ?? { category: a.category };
  const lost = a.category === 'lost';
  const movements = lost
    ? tx.movements.map((m) => (new Big(m.amount).lt(0) && isToken(tx, m.symbol) ? { ...m, value: '0' } : m))
    : tx.movements;
  effect.movements = tx.movements.length;
  effect.effect = `category ${tx.category ?? '(none)'} → ${mapped.category}${mapped.subType ? ` (${mapped.subType})` : ''}${lost ? '; the tokens sent are disposed of for nothing' : ''}`;
  return changed(tx, {
    category: mapped.category,
    ...(mapped.subType ? { subType: mapped.subType } : {}),
    movements,
  });
}

/** `tx` with the value `a` sets on its one movement without a value (of `a.token`, if named). */
function setValue(
  tx: CanonicalTransaction,
  a: Extract<Adjustment, { kind: 'value' }>,
  effect: AdjustmentEffect,
  isToken: IsToken,
): CanonicalTransaction {
  const targets = tx.movements
    .map((movement, index) => ({ movement, index }))
    .filter(
      ({ movement }) =>
        isToken(tx, movement.symbol) && (a.token === undefined || movement.symbol === a.token),
    );
  if (a.token !== undefined && targets.length === 0)
    throw new UnknownReferenceError(a.id, 'token', `${a.token} in transaction ${tx.id}`);
  const open = a.token === undefined ? targets.filter(({ movement }) => movement.value === null) : targets;
  if (open.length !== 1)
    throw new AdjustmentMismatchError(
      a.id,
      open.length === 0
        ? `transaction ${tx.id} has no movement without a value`
        : `transaction ${tx.id} has ${open.length} movements${a.token === undefined ? ' without a value: name the token' : ` of ${a.token}`}`,
      { field: open.length === 0 || a.token === undefined ? 'txId' : 'token' },
    );
  const { movement, index } = open[0] as { movement: CanonicalMovement; index: number };
  if (movement.value !== null)
    throw new AdjustmentMismatchError(
      a.id,
      `the ${movement.symbol} movement of transaction ${tx.id} has a value from the service (${movement.value}): the service's value stands; withdraw the adjustment`,
      { field: a.token === undefined ? 'txId' : 'token' },
    );
  effect.value = a.value;
  effect.movements = 1;
  const out = new Big(movement.amount).lt(0);
  effect.effect = `value ${a.value} for ${movement.amount.replace('-', '')} ${movement.symbol} ${out ? 'sent (proceeds)' : 'received (cost, or income)'}`;
  const movements = tx.movements.map((m, i) => (i === index ? { ...m, value: a.value } : m));
  return changed(tx, { movements });
}

/** Refuses a hand-made pair whose sides do not fit each other; `effect` says what moved. */
function checkPair(
  a: Extract<Adjustment, { kind: 'transfer-pair' }>,
  sent: PairSide,
  received: PairSide,
  effect: AdjustmentEffect,
): void {
  const tokens = (side: PairSide) => [...side.quantities.keys()].sort().join(', ');
  if (tokens(sent) !== tokens(received))
    throw new AdjustmentMismatchError(
      a.id,
      `${a.outTxId} sends ${tokens(sent)} but ${a.inTxId} receives ${tokens(received)}`,
      { field: 'inTxId' },
    );
  if (sent.account === received.account)
    throw new AdjustmentMismatchError(
      a.id,
      `${a.outTxId} and ${a.inTxId} are in the same account ${sent.account ?? '(none)'}: a move inside it changes nothing`,
      { field: 'inTxId' },
    );
  const parts: string[] = [];
  for (const [token, q] of sent.quantities) {
    const got = received.quantities.get(token) as Big;
    if (q.minus(got).abs().gt(q.times(PAIR_QUANTITY_TOLERANCE)))
      throw new AdjustmentMismatchError(
        a.id,
        `${a.outTxId} sends ${q.toFixed()} ${token} but ${a.inTxId} receives ${got.toFixed()}: more than ${Number(PAIR_QUANTITY_TOLERANCE) * 100} % apart`,
        { field: 'inTxId' },
      );
    parts.push(`${q.toFixed()} ${token}`);
  }
  effect.movements = 2;
  effect.effect = `${parts.join(', ')} moved from ${sent.account ?? '(none)'} to ${received.account ?? '(none)'} without a gain; the lots keep their basis and dates`;
}

/** `2019-01-01T00:00:00Z` as the canonical `2019-01-01T00:00:00.000Z`. */
const canonicalDate = (instant: string) => new Date(Date.parse(instant)).toISOString();

/**
 * Prepares the adjustments of `document` (validated: see `validateAdjustments`) for one run over
 * a history, which must pass through {@link AdjustmentsApplier.apply} in date order.
 */
export function createAdjustmentsApplier(
  document: AdjustmentsDocument,
  options: ApplyOptions = {},
): AdjustmentsApplier {
  const adjustments = document.adjustments;
  const fiat = new Set(options.fiatSymbols ?? DEFAULT_FIAT_SYMBOLS);
  const transferCategories = new Set(options.transferCategories ?? ['transfer', 'bridge']);
  const isToken = (tx: CanonicalTransaction, symbol: string) =>
    !fiat.has(symbol) && symbol !== tx.valueCurrency && symbol !== tx.feeCurrency;

  const byTx = new Map<string, Adjustment[]>();
  const byToken = new Map<string, string[]>();
  const spam = new Map<string, Adjustment>();
  const transferPairs = new Map<string, string>();
  const transferInCosts = new Map<string, Map<string, TransferInCost>>();
  const openings: { tx: CanonicalTransaction; lot: Lot; adjustment: Adjustment }[] = [];
  const note = (txId: string, a: Adjustment) => byTx.set(txId, [...(byTx.get(txId) ?? []), a]);
  const noteToken = (token: string, a: Adjustment) =>
    byToken.set(token, [...(byToken.get(token) ?? []), a.id]);
  const effects = new Map<string, AdjustmentEffect>();
  const effectOf = (a: Adjustment) => effects.get(a.id) as AdjustmentEffect;

  for (const a of adjustments) {
    effects.set(a.id, {
      adjustment: a,
      names: namesOf(a),
      basis: null,
      value: null,
      movements: 0,
      effect: '',
    });
    switch (a.kind) {
      case 'transfer-pair':
        transferPairs.set(a.outTxId, a.inTxId);
        note(a.outTxId, a);
        note(a.inTxId, a);
        break;
      case 'spam':
        spam.set(a.token, a);
        noteToken(a.token, a);
        break;
      case 'opening-lots':
        a.lots.forEach((lot, index) => {
          const id = `adj:${a.id}:${index + 1}`;
          noteToken(lot.token, a);
          openings.push({
            adjustment: a,
            lot,
            tx: lotTransaction(id, lot, 'opening', canonicalDate(lot.acquiredAt), lot.account ?? null, null),
          });
        });
        break;
      case 'missing-lots':
        for (const lot of a.lots) noteToken(lot.token, a);
        note(a.txId, a);
        break;
      default:
        note(a.txId, a);
    }
  }
  openings.sort((x, y) => Date.parse(x.lot.acquiredAt) - Date.parse(y.lot.acquiredAt));

  const seenTx = new Set<string>();
  const seenToken = new Set<string>();
  const sides = new Map<string, PairSide>();
  let first: CanonicalTransaction | null = null;

  /** Drops the spam tokens' movements and fee; `null` when nothing is left. */
  function withoutSpam(tx: CanonicalTransaction): CanonicalTransaction | null {
    if (spam.size === 0) return tx;
    const kept = tx.movements.filter((movement) => {
      const marked = spam.get(movement.symbol);
      if (marked === undefined) return true;
      seenToken.add(movement.symbol);
      effectOf(marked).movements += 1;
      return false;
    });
    const feeMarked = tx.feeSymbol === null ? undefined : spam.get(tx.feeSymbol);
    if (feeMarked !== undefined) {
      seenToken.add(tx.feeSymbol as string);
      effectOf(feeMarked).movements += 1;
    }
    if (kept.length === tx.movements.length && feeMarked === undefined) return tx;
    const fee =
      feeMarked === undefined
        ? {}
        : { feeSymbol: null, feeQuantity: null, feeAmount: null, feeCurrency: null };
    const next = changed(tx, { movements: kept, ...fee });
    // Nothing left to count: no movement and no fee.
    return kept.length === 0 && next.feeAmount === null && next.feeQuantity === null ? null : next;
  }

  function pairSide(
    tx: CanonicalTransaction,
    a: Extract<Adjustment, { kind: 'transfer-pair' }>,
  ): CanonicalTransaction {
    const out = tx.id === a.outTxId;
    const quantities = new Map<string, Big>();
    for (const m of tx.movements) {
      const q = new Big(m.amount);
      if (isToken(tx, m.symbol) && (out ? q.lt(0) : q.gt(0)))
        quantities.set(m.symbol, (quantities.get(m.symbol) ?? new Big(0)).plus(q.abs()));
    }
    if (quantities.size === 0)
      throw new AdjustmentMismatchError(
        a.id,
        `transaction ${tx.id} ${out ? 'sends' : 'receives'} no token, so it cannot be the ${out ? 'out' : 'in'} side of a transfer`,
        { field: out ? 'outTxId' : 'inTxId' },
      );
    const other = sides.get(out ? a.inTxId : a.outTxId);
    sides.set(tx.id, { quantities, account: tx.accountId });
    if (other !== undefined)
      checkPair(
        a,
        out ? { quantities, account: tx.accountId } : other,
        out ? other : { quantities, account: tx.accountId },
        effectOf(a),
      );
    return transferCategories.has(tx.category ?? '') ? tx : changed(tx, { category: 'transfer' });
  }

  function giveBasis(tx: CanonicalTransaction, a: Extract<Adjustment, { kind: 'cost-basis' }>): void {
    const ins = tx.movements.filter((m) => m.symbol === a.token && new Big(m.amount).gt(0));
    if (!transferCategories.has(tx.category ?? '') || ins.length === 0)
      throw new AdjustmentMismatchError(
        a.id,
        ins.length === 0 && !tx.movements.some((m) => m.symbol === a.token)
          ? `transaction ${tx.id} has no ${a.token} movement`
          : `transaction ${tx.id} is not a transfer in of ${a.token} (category ${tx.category ?? '(none)'}): a cost basis is given to tokens that came from outside`,
        { field: ins.length === 0 && !tx.movements.some((m) => m.symbol === a.token) ? 'token' : 'txId' },
      );
    if (ins.length > 1)
      throw new AdjustmentMismatchError(
        a.id,
        `transaction ${tx.id} receives ${a.token} in ${ins.length} movements`,
        { field: 'token' },
      );
    const movement = ins[0] as CanonicalMovement;
    if (a.acquiredAt !== undefined && Date.parse(a.acquiredAt) > Date.parse(tx.date))
      throw new AdjustmentMismatchError(
        a.id,
        `acquired at ${a.acquiredAt}, after the transfer in (${tx.date})`,
        { field: 'acquiredAt' },
      );
    let costs = transferInCosts.get(tx.id);
    if (costs === undefined) {
      costs = new Map();
      transferInCosts.set(tx.id, costs);
    }
    costs.set(a.token, {
      cost: a.cost,
      ...(a.acquiredAt === undefined ? {} : { acquiredAt: Date.parse(a.acquiredAt) }),
    });
    const effect = effectOf(a);
    effect.basis = a.cost;
    effect.movements = 1;
    effect.effect = `basis ${a.cost} for ${movement.amount} ${a.token} received${a.acquiredAt === undefined ? '' : `, acquired ${a.acquiredAt}`} (was ${movement.value === null ? 'zero, no value' : `its value at receipt, ${movement.value.replace('-', '')}`})`;
  }

  function missingLots(
    tx: CanonicalTransaction,
    a: Extract<Adjustment, { kind: 'missing-lots' }>,
    currency: string | null,
  ) {
    const at = Date.parse(tx.date);
    let basis = new Big(0);
    const made = a.lots.map((lot, index) => {
      if (!tx.movements.some((m) => m.symbol === lot.token && new Big(m.amount).lt(0)))
        throw new AdjustmentMismatchError(
          a.id,
          `transaction ${tx.id} disposes of no ${lot.token}, so it has no missing lots of it`,
          { field: `lots[${index}].token` },
        );
      if (Date.parse(lot.acquiredAt) > at)
        throw new AdjustmentMismatchError(
          a.id,
          `lot ${index + 1} was acquired at ${lot.acquiredAt}, after the disposal (${tx.date})`,
          { field: `lots[${index}].acquiredAt` },
        );
      const id = `adj:${a.id}:${index + 1}`;
      transferInCosts.set(
        id,
        new Map([[lot.token, { cost: lot.cost, acquiredAt: Date.parse(lot.acquiredAt) }]]),
      );
      basis = basis.plus(lot.cost);
      return lotTransaction(id, lot, 'missing', tx.date, lot.account ?? tx.accountId, currency);
    });
    const effect = effectOf(a);
    effect.basis = basis.toFixed();
    effect.movements = made.length;
    effect.effect = `${made.length} lot(s) added just before the disposal: ${a.lots.map((lot) => `${lot.quantity} ${lot.token} for ${lot.cost}`).join(', ')}`;
    return made;
  }

  /**
   * The opening lots, due before the first real transaction `tx` (all of them: they precede the
   * history); `null` when the history has none.
   */
  function openingLots(tx: CanonicalTransaction | null): CanonicalTransaction[] {
    const at = tx === null ? Number.POSITIVE_INFINITY : Date.parse(tx.date);
    return openings.map(({ tx: lotTx, lot, adjustment: a }) => {
      if (tx !== null && Date.parse(lot.acquiredAt) >= at)
        throw new AdjustmentMismatchError(
          a.id,
          `an opening lot of ${lot.token} acquired at ${lot.acquiredAt} is not before the history's first transaction (${tx.id}, ${tx.date})`,
          { field: a.kind === 'opening-lots' ? `lots[${a.lots.indexOf(lot)}].acquiredAt` : 'lots' },
        );
      const effect = effectOf(a);
      effect.basis = new Big(effect.basis ?? 0).plus(lot.cost).toFixed();
      effect.movements += 1;
      effect.effect = `${effect.movements} opening lot(s) before the history starts`;
      return changed(lotTx, { valueCurrency: options.currency ?? tx?.valueCurrency ?? null });
    });
  }

  return {
    adapterOptions: { transferPairs, transferInCosts },
    apply(given) {
      const before: CanonicalTransaction[] = [];
      if (first === null) {
        first = given;
        before.push(...openingLots(given));
      }
      let tx = withoutSpam(given);
      const named = byTx.get(given.id);
      if (named === undefined) return tx === null ? before : [...before, tx];
      seenTx.add(given.id);
      if (tx === null) return before;
      const currency = options.currency ?? tx.valueCurrency;
      // Categories first: a basis or a pair is checked against the category it ends with.
      for (const a of named) if (a.kind === 'category') tx = setCategory(tx, a, effectOf(a), isToken);
      for (const a of named) {
        if (a.kind === 'value') tx = setValue(tx, a, effectOf(a), isToken);
        else if (a.kind === 'transfer-pair') tx = pairSide(tx, a);
        else if (a.kind === 'cost-basis') giveBasis(tx, a);
        else if (a.kind === 'missing-lots') before.push(...missingLots(tx, a, currency));
      }
      return [...before, tx];
    },
    finish() {
      for (const a of adjustments) {
        const txIds = a.kind === 'transfer-pair' ? [a.outTxId, a.inTxId] : 'txId' in a ? [a.txId] : [];
        for (const txId of txIds)
          if (!seenTx.has(txId))
            throw new UnknownReferenceError(a.id, 'transaction', txId, {
              field: a.kind === 'transfer-pair' ? (txId === a.outTxId ? 'outTxId' : 'inTxId') : 'txId',
            });
        if (a.kind === 'spam' && !seenToken.has(a.token))
          throw new UnknownReferenceError(a.id, 'token', a.token);
      }
      // No real transaction at all: the opening lots are the whole history.
      return first === null ? openingLots(null) : [];
    },
    effects: () => [...effects.values()],
    namedBy(txId, token) {
      // A synthetic lot `adj:<id>:<n>` is its adjustment's.
      const synthetic = /^adj:(.+):\d+$/.exec(txId);
      if (synthetic !== null) return [synthetic[1] as string];
      const ids = (byTx.get(txId) ?? []).map((a) => a.id);
      return ids.length > 0 ? ids : (byToken.get(token) ?? []);
    },
  };
}
