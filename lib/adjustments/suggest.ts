/**
 * Suggestions, not guesses: where the data points at a resolution of a gains warning, a proposed
 * adjustment that says why. Nothing here is applied: the accountant accepts a suggestion (the
 * portal's "Accept suggestion", or the API's POST of its `adjustment`), and only then does it join
 * the profile's adjustments document with who accepted it and when.
 *
 * The rules, each from the canonical transactions and the gains warnings alone:
 * - a transfer side whose same-hash counterpart (same token, the other direction, another account)
 *   lies beyond the pairing tolerance → `transfer-pair`;
 * - an unmatched transfer out and an unmatched transfer in of the same quantity of the same token,
 *   in two accounts, close in time (different hashes) → `transfer-pair`;
 * - a token only ever received, never valued (no movement with a non-zero value) and never given
 *   away → `spam`;
 * - a stablecoin movement without a value, in the currency the stablecoin is pegged to → `value` at
 *   the peg (quantity × 1), said to be the peg.
 */
import { createHash } from 'node:crypto';
import { Big, type CanonicalTransaction } from '../domain/index.ts';
import type { GainsWarning } from '../gains/index.ts';
import type { Adjustment } from './schema.ts';

/** An adjustment as proposed: without who accepted it and when (the server or CLI sets them). */
export type ProposedAdjustment = Adjustment extends infer A
  ? A extends Adjustment
    ? Omit<A, 'by' | 'at'>
    : never
  : never;

/** One suggestion: the proposal, what it resolves and why, in words. */
export interface Suggestion {
  /** The proposed adjustment; its `id` is stable for the same data (`suggested-…`). */
  adjustment: ProposedAdjustment;
  /** The warnings (transaction and token) it resolves. */
  resolves: readonly { txId: string; token: string }[];
  /** The suggestion in words, for the warning row and the portal. */
  text: string;
}

/** Options of {@link createSuggester}; each has a default. */
export interface SuggestOptions {
  /** The pairing tolerance of the run, in milliseconds. Default 24 hours. */
  transferTolerance?: number;
  /** How close in time an equal in and out must be to be suggested as one move. Default 72 hours. */
  closeMs?: number;
  /** Categories whose movements are transfers. Default `transfer`, `bridge`. */
  transferCategories?: readonly string[];
  /** Stablecoins by symbol, with the currency each is pegged to. Default {@link STABLECOIN_PEGS}. */
  stablecoins?: Readonly<Record<string, string>>;
  /**
   * The currency of the gains figures (a peg in another currency suggests nothing), or how to
   * read it once it is known. Default `USD`.
   */
  currency?: string | (() => string);
}

/** Well-known stablecoins and the currency each is pegged to. */
export const STABLECOIN_PEGS: Readonly<Record<string, string>> = {
  USDC: 'USD',
  USDT: 'USD',
  DAI: 'USD',
  BUSD: 'USD',
  TUSD: 'USD',
  USDP: 'USD',
  GUSD: 'USD',
  PYUSD: 'USD',
  FDUSD: 'USD',
  USDS: 'USD',
  EURC: 'EUR',
  EURT: 'EUR',
};

const HOUR_MS = 3_600_000;

interface Side {
  txId: string;
  time: number;
  hash: string | null;
  account: string | null;
  token: string;
  /** Signed. */
  amount: Big;
}

interface TokenFacts {
  received: number;
  givenAway: boolean;
  valued: boolean;
}

/**
 * Collects what the rules need while the history streams past ({@link Suggester.see} each
 * transaction, {@link Suggester.warn} each warning), then answers the suggestions. It keeps the
 * sides of transfers, the movements without a value, and a few flags per token, not the history.
 */
export interface Suggester {
  see(tx: CanonicalTransaction): void;
  warn(warning: GainsWarning): void;
  /** Every suggestion, in the order of the warnings they resolve. */
  suggestions(): readonly Suggestion[];
  /** The suggestion resolving this warning, if any. */
  forWarning(warning: Pick<GainsWarning, 'txId' | 'token' | 'kind'>): Suggestion | undefined;
  /**
   * Every warning of the transactions dated before `before` is in: what was kept of them that no
   * warning names is dropped, so a long history keeps only its warned sides. Transactions seen in
   * date order are dropped as they are settled (one out of order waits for a later call).
   */
  settle(before: number): void;
}

/** Creates a {@link Suggester}. */
export function createSuggester(options: SuggestOptions = {}): Suggester {
  const tolerance = options.transferTolerance ?? 24 * HOUR_MS;
  const closeMs = options.closeMs ?? 72 * HOUR_MS;
  const transferCategories = new Set(options.transferCategories ?? ['transfer', 'bridge']);
  const pegs = options.stablecoins ?? STABLECOIN_PEGS;
  const currencyNow = () =>
    typeof options.currency === 'function' ? options.currency() : (options.currency ?? 'USD');
  /**
   * Per transfer transaction only its hash and the tokens it sends out: the rest of a side (time,
   * account, token, quantity) comes with its warning, and only warned sides are ever paired. Kept
   * this small because a long history has many transfers.
   */
  const transfers = new Map<string, { hash: string | null; out: readonly string[]; time: number }>();
  /** Movements without a value, per transaction, with the transaction's value currency. */
  const unvalued = new Map<string, { currency: string | null; sides: Side[]; time: number }>();
  /** What {@link Suggester.settle} keeps of the two: the transactions a warning names. */
  const warnedTransfers = new Map<string, { hash: string | null; out: readonly string[] }>();
  const warnedUnvalued = new Map<string, { currency: string | null; sides: Side[] }>();
  const tokens = new Map<string, TokenFacts>();
  const warnings: GainsWarning[] = [];
  let answered: { list: Suggestion[]; byWarning: Map<string, Suggestion> } | null = null;

  function see(tx: CanonicalTransaction): void {
    answered = null;
    let missing: Side[] | null = null;
    for (const m of tx.movements) {
      const facts = tokens.get(m.symbol) ?? { received: 0, givenAway: false, valued: false };
      const negative = m.amount.startsWith('-');
      if (!negative && !isZero(m.amount)) facts.received += 1;
      if (negative && !isZero(m.amount)) facts.givenAway = true;
      if (m.value !== null && !isZero(m.value)) facts.valued = true;
      tokens.set(m.symbol, facts);
      if (m.value === null) {
        missing ??= [];
        missing.push({
          txId: tx.id,
          time: Date.parse(tx.date),
          hash: tx.hash,
          account: tx.accountId,
          token: m.symbol,
          amount: new Big(m.amount),
        });
      }
    }
    const time = Date.parse(tx.date);
    if (transferCategories.has(tx.category ?? ''))
      transfers.set(tx.id, {
        hash: tx.hash === null || tx.hash === '' ? null : tx.hash,
        out: tx.movements.filter((m) => m.amount.startsWith('-')).map((m) => m.symbol),
        time,
      });
    if (missing !== null) unvalued.set(tx.id, { currency: tx.valueCurrency, sides: missing, time });
  }

  /** Drops the entries of `kept` (in the order seen) dated before `before`, up to a later one. */
  function dropSettled(kept: Map<string, { time: number }>, before: number): void {
    for (const [txId, entry] of kept) {
      if (entry.time >= before) return;
      kept.delete(txId);
    }
  }

  /** The side of a transfer a warning names, from the warning and what was kept of its transaction. */
  function sideOf(w: GainsWarning): Side | null {
    const kept = transfers.get(w.txId) ?? warnedTransfers.get(w.txId);
    if (kept === undefined || isZero(w.quantity)) return null;
    const quantity = new Big(w.quantity).abs();
    return {
      txId: w.txId,
      time: w.time,
      hash: kept.hash,
      account: w.account,
      token: w.token,
      amount: kept.out.includes(w.token) ? quantity.neg() : quantity,
    };
  }

  function warn(warning: GainsWarning): void {
    answered = null;
    if (warning.kind === 'unmatched-transfer' || warning.kind === 'missing-value') warnings.push(warning);
    const transfer = warning.kind === 'unmatched-transfer' ? transfers.get(warning.txId) : undefined;
    if (transfer !== undefined) warnedTransfers.set(warning.txId, transfer);
    const sides = warning.kind === 'missing-value' ? unvalued.get(warning.txId) : undefined;
    if (sides !== undefined) warnedUnvalued.set(warning.txId, sides);
  }

  function answer() {
    if (answered !== null) return answered;
    const list: Suggestion[] = [];
    const byWarning = new Map<string, Suggestion>();
    const add = (suggestion: Suggestion, kinds: readonly GainsWarning['kind'][]) => {
      list.push(suggestion);
      for (const r of suggestion.resolves)
        for (const kind of kinds) byWarning.set(warningKey(kind, r.txId, r.token), suggestion);
    };
    const taken = (kind: GainsWarning['kind'], txId: string, token: string) =>
      byWarning.has(warningKey(kind, txId, token));
    const unmatched = warnings.filter((w) => w.kind === 'unmatched-transfer').flatMap((w) => sideOf(w) ?? []);
    for (const side of unmatched) {
      if (taken('unmatched-transfer', side.txId, side.token)) continue;
      const pair = sameHashBeyond(side, unmatched, tolerance) ?? equalClose(side, unmatched, closeMs, taken);
      if (pair !== null) add(transferPair(side, pair.other, pair.why), ['unmatched-transfer']);
    }
    for (const w of warnings) {
      if (w.kind !== 'missing-value' || taken('missing-value', w.txId, w.token)) continue;
      const facts = tokens.get(w.token);
      // A stablecoin is never spam: its value is known, the peg.
      if (pegs[w.token] !== undefined) {
        const entry = unvalued.get(w.txId) ?? warnedUnvalued.get(w.txId);
        const side = entry?.sides.find((s) => s.token === w.token);
        const currency = currencyNow();
        if (side !== undefined && pegs[w.token] === currency && (entry?.currency ?? currency) === currency)
          add(atPeg(side, currency), ['missing-value']);
      } else if (facts !== undefined && facts.received > 0 && !facts.givenAway && !facts.valued)
        add(spam(w.token, facts.received, warnings), ['missing-value', 'unmatched-transfer']);
    }
    answered = { list, byWarning };
    return answered;
  }

  return {
    see,
    warn,
    settle(before) {
      dropSettled(transfers, before);
      dropSettled(unvalued, before);
    },
    suggestions: () => answer().list,
    forWarning: (w) => answer().byWarning.get(warningKey(w.kind, w.txId, w.token)),
  };
}

/** The suggestions for a whole history and its warnings (see {@link createSuggester}). */
export function suggestAdjustments(
  transactions: Iterable<CanonicalTransaction>,
  warnings: Iterable<GainsWarning>,
  options: SuggestOptions = {},
): readonly Suggestion[] {
  const suggester = createSuggester(options);
  for (const tx of transactions) suggester.see(tx);
  for (const w of warnings) suggester.warn(w);
  return suggester.suggestions();
}

/** The text of a warning row's `suggestion` cell: the words and the proposed adjustment's id. */
export function suggestionCell(suggestion: Suggestion | undefined): string {
  return suggestion === undefined
    ? ''
    : `${suggestion.text} (proposed adjustment ${suggestion.adjustment.id})`;
}

/** Whether a plain decimal text is zero (`0`, `-0.00`), without parsing it. */
function isZero(decimal: string): boolean {
  return /^[-+]?0*\.?0*$/.test(decimal);
}

function warningKey(kind: string, txId: string, token: string): string {
  return `${kind}\u0000${txId}\u0000${token}`;
}

/**
 * The id of a proposal: its kind and what it names (`suggested:spam:CLAIM`), each part URI-encoded,
 * so the same data proposes the same id and a warning row's id alone says the whole proposal
 * ({@link proposalFromId}). Past the schema's 200 characters, a digest (not acceptable from a row).
 */
function proposalId(kind: string, ...parts: string[]): string {
  const id = ['suggested', kind, ...parts.map(encodeURIComponent)].join(':');
  if (id.length <= 200) return id;
  return `suggested-${kind}-${createHash('sha256').update(parts.join('\u0000')).digest('hex').slice(0, 16)}`;
}

/**
 * The proposal a suggestion id stands for (see {@link proposalId}), with `why`; `null` for an id
 * that is no suggestion's.
 */
export function proposalFromId(id: string, why: string): ProposedAdjustment | null {
  const [prefix, kind, ...encoded] = id.split(':');
  if (prefix !== 'suggested') return null;
  let parts: string[];
  try {
    parts = encoded.map(decodeURIComponent);
  } catch {
    return null;
  }
  const [a, b, c] = parts;
  if (kind === 'transfer-pair' && parts.length === 2 && a && b)
    return { id, kind, outTxId: a, inTxId: b, why };
  if (kind === 'spam' && parts.length === 1 && a) return { id, kind, token: a, why };
  if (kind === 'value' && parts.length === 3 && a && b && c)
    return { id, kind, txId: a, token: b, value: c, why };
  return null;
}

function hours(ms: number): string {
  const h = ms / HOUR_MS;
  return h >= 48 ? `${Math.round(h / 24)} days` : `${Math.round(h)} hours`;
}

function sameHashBeyond(side: Side, unmatched: readonly Side[], tolerance: number) {
  const other = unmatched.find(
    (o) =>
      o.hash !== null &&
      o.hash === side.hash &&
      o.token === side.token &&
      o.txId !== side.txId &&
      o.amount.gt(0) !== side.amount.gt(0) &&
      o.account !== side.account &&
      Math.abs(o.time - side.time) > tolerance,
  );
  if (other === undefined) return null;
  const gap = hours(Math.abs(other.time - side.time));
  return {
    other,
    why: `same hash, ${gap} apart: beyond the pairing tolerance of ${hours(tolerance)}`,
  };
}

function equalClose(
  side: Side,
  unmatched: readonly Side[],
  closeMs: number,
  taken: (kind: GainsWarning['kind'], txId: string, token: string) => boolean,
) {
  let best: Side | undefined;
  for (const o of unmatched) {
    if (o.token !== side.token || o.txId === side.txId || o.account === side.account) continue;
    if (!o.amount.eq(side.amount.neg()) || Math.abs(o.time - side.time) > closeMs) continue;
    if (taken('unmatched-transfer', o.txId, o.token)) continue;
    if (best === undefined || Math.abs(o.time - side.time) < Math.abs(best.time - side.time)) best = o;
  }
  if (best === undefined) return null;
  return {
    other: best,
    why: `the same quantity, out of one own account and into another, ${hours(Math.abs(best.time - side.time))} apart`,
  };
}

function transferPair(side: Side, other: Side, why: string): Suggestion {
  const [out, into] = side.amount.lt(0) ? [side, other] : [other, side];
  const quantity = out.amount.abs().toString();
  return {
    adjustment: {
      id: proposalId('transfer-pair', out.txId, into.txId),
      kind: 'transfer-pair',
      outTxId: out.txId,
      inTxId: into.txId,
      why: `Suggested: ${quantity} ${out.token} out (${out.txId}) and in (${into.txId}), ${why}.`,
    },
    resolves: [
      { txId: out.txId, token: out.token },
      { txId: into.txId, token: into.token },
    ],
    text: `Pair ${out.txId} (out) with ${into.txId} (in) as one move of ${quantity} ${out.token} between own accounts: ${why}`,
  };
}

function spam(token: string, received: number, warnings: readonly GainsWarning[]): Suggestion {
  const resolves = warnings.filter((w) => w.token === token).map((w) => ({ txId: w.txId, token }));
  const times = received === 1 ? 'once' : `${received} times`;
  return {
    adjustment: {
      id: proposalId('spam', token),
      kind: 'spam',
      token,
      why: `Suggested: ${token} was only ever received (${times}), never valued and never given away.`,
    },
    resolves,
    text: `Mark ${token} as spam: only ever received (${times}), never valued and never given away`,
  };
}

function atPeg(side: Side, currency: string): Suggestion {
  // The value carries the movement's sign, as the service's values do.
  const value = side.amount.toFixed(2);
  const quantity = side.amount.abs().toString();
  return {
    adjustment: {
      id: proposalId('value', side.txId, side.token, value),
      kind: 'value',
      txId: side.txId,
      token: side.token,
      value,
      why: `Suggested: ${side.token} is a stablecoin pegged to ${currency}; valued at the peg (1 ${side.token} = 1 ${currency}), not at a market price.`,
    },
    resolves: [{ txId: side.txId, token: side.token }],
    text: `Value ${quantity} ${side.token} at the peg: ${value} ${currency} (1 ${side.token} = 1 ${currency}, not a market price)`,
  };
}
