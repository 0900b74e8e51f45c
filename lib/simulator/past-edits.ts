/**
 * Changes to past months after a given instant: a transaction modified, added or deleted at `at`.
 * Faithful to the spec's timeline: from `at` on, searches show the portfolio as changed; the
 * timeline with `lastModifiedDate` lists a modified or added item with `lastModifiedDate` = `at`,
 * and a deleted one (its last content) with `deleted: true` and `lastModifiedDate` = `at`; without
 * `lastModifiedDate` the timeline lists only transactions that exist. Before `at` (by the
 * simulator's clock) an edit is not visible anywhere. Edits are kept per profile, in `at` order.
 */
import Big from 'big.js';
import { ValidationError } from '../errors.ts';
import { isoInstant, type Portfolio } from './data.ts';
import type { SearchQuery } from './query.ts';
import type { CanonicalTransaction, PastEdit } from './types.ts';

export type { PastEdit } from './types.ts';

interface Stamped {
  edit: PastEdit;
  atMs: number;
}

/** The state of one transaction that edits touched: its content now, or deleted. */
export interface Touched {
  tx: CanonicalTransaction;
  deleted: boolean;
  atMs: number;
}

/** What edits are checked against: the simulator's profiles and their generated transactions. */
export interface EditsContext {
  /** The simulated profiles' names. */
  profiles: readonly string[];
  /** Whether `profile` has the live generated transaction `id`. */
  hasLive(profile: string, id: string): boolean;
}

const KINDS: readonly string[] = ['modify', 'add', 'delete'];

/** A plain JSON object (not an array or null). */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The past edits of every profile, and the portfolios as they are once the effective ones apply. */
export class PastEdits {
  private readonly edits: Stamped[] = [];

  /**
   * Adds edits, each checked first against `context` (they come from a file, as JSON): a kind,
   * profile and instant, the fields of its kind, and for a modify or delete an id the profile has
   * (generated, or added by an edit effective by then). Throws `ValidationError` naming the edit
   * and the field (`edits[2].id`), and adds none of them then: an edit that cannot apply would
   * fail every request of its profile once its instant passed.
   */
  add(edits: readonly PastEdit[], context: EditsContext): void {
    const checked = edits.map((edit, k) => ({ edit, atMs: checkEdit(edit, k, context) }));
    const added = [...this.edits, ...checked].filter((stamped) => stamped.edit.kind === 'add');
    checked.forEach(({ edit, atMs }, k) => {
      if (edit.kind === 'add') return;
      const known =
        context.hasLive(edit.profile, edit.id) ||
        added.some(
          (stamped) =>
            stamped.atMs <= atMs &&
            stamped.edit.profile === edit.profile &&
            stamped.edit.kind === 'add' &&
            stamped.edit.transaction.id === edit.id,
        );
      if (!known)
        throw new ValidationError(
          `edits[${k}].id`,
          `no live transaction ${JSON.stringify(edit.id)} in profile "${edit.profile}" (nor one an edit adds by then)`,
        );
    });
    this.edits.push(...checked);
    this.edits.sort((a, b) => a.atMs - b.atMs);
  }

  /** The edits of `profile` in force at `nowMs`; none means the generated data is served as is. */
  effective(profile: string, nowMs: number): Stamped[] {
    return this.edits.filter((s) => s.edit.profile === profile && s.atMs <= nowMs);
  }

  /** What the effective edits did to each transaction they touched, by id. */
  touched(portfolio: Portfolio, effective: readonly Stamped[]): Map<string, Touched> {
    const byId = new Map<string, Touched>();
    for (const { edit, atMs } of effective) {
      if (edit.kind === 'add') {
        byId.set(edit.transaction.id as string, {
          tx: { ...structuredClone(edit.transaction), lastModifiedDate: isoInstant(atMs) },
          deleted: false,
          atMs,
        });
        continue;
      }
      const before = byId.get(edit.id)?.tx ?? generated(portfolio, edit.id);
      const tx = edit.kind === 'modify' ? { ...before, ...structuredClone(edit.set) } : { ...before };
      tx.lastModifiedDate = isoInstant(atMs);
      byId.set(edit.id, { tx, deleted: edit.kind === 'delete', atMs });
    }
    return byId;
  }
}

/**
 * Checks one edit as read from JSON (see {@link PastEdits.add}) but for its id's existence;
 * returns its instant in epoch ms.
 */
function checkEdit(edit: PastEdit, k: number, context: EditsContext): number {
  const at = `edits[${k}]`;
  if (!isObject(edit)) throw new ValidationError(at, 'expected an object');
  if (!KINDS.includes(edit.kind))
    throw new ValidationError(
      `${at}.kind`,
      `expected "modify", "add" or "delete", got ${JSON.stringify(edit.kind)}`,
    );
  if (typeof edit.profile !== 'string' || !context.profiles.includes(edit.profile))
    throw new ValidationError(
      `${at}.profile`,
      `no simulated profile ${JSON.stringify(edit.profile)} (it has: ${context.profiles.join(', ')})`,
    );
  const atMs =
    typeof edit.at === 'number' ? edit.at : typeof edit.at === 'string' ? Date.parse(edit.at) : Number.NaN;
  if (!Number.isFinite(atMs)) throw new ValidationError(`${at}.at`, 'must be an ISO instant or epoch ms');
  if (edit.kind === 'add') {
    if (!isObject(edit.transaction)) throw new ValidationError(`${at}.transaction`, 'expected an object');
    if (typeof edit.transaction.id !== 'string' || edit.transaction.id === '')
      throw new ValidationError(`${at}.transaction.id`, 'is required');
    return atMs;
  }
  if (typeof edit.id !== 'string' || edit.id === '') throw new ValidationError(`${at}.id`, 'is required');
  if (edit.kind === 'modify') {
    if (!isObject(edit.set))
      throw new ValidationError(`${at}.set`, 'expected an object of the fields replaced');
    if ('id' in edit.set) throw new ValidationError(`${at}.set.id`, 'an id never changes');
  }
  return atMs;
}

/** The generated transaction with `id` (a live one); throws when there is none. */
function generated(portfolio: Portfolio, id: string): CanonicalTransaction {
  const index = portfolio.liveIndexOf(id);
  if (index !== undefined) return portfolio.transaction(index);
  throw new ValidationError('edits.id', `no live transaction "${id}" in profile "${portfolio.profile.name}"`);
}

/** A view of a portfolio with its effective edits applied: what searches and the timeline serve. */
export interface EditedView {
  /** Every live transaction now, ordered by date then id. */
  all(): CanonicalTransaction[];
  search(query: SearchQuery): CanonicalTransaction[];
  /** Timeline items (before `source`), ordered by date then id. */
  timeline(sinceMs: number | null): CanonicalTransaction[];
}

/** The view of `portfolio` under `touched` (see {@link PastEdits.touched}). */
export function editedView(portfolio: Portfolio, touched: Map<string, Touched>): EditedView {
  let cached: CanonicalTransaction[] | undefined;
  const all = (): CanonicalTransaction[] => {
    if (cached) return cached;
    const out: CanonicalTransaction[] = [];
    for (let i = 0; i < portfolio.count; i += 1) {
      if (portfolio.isDeleted(i)) continue;
      const id = portfolio.idOf(i);
      if (!touched.has(id)) out.push(portfolio.transaction(i));
    }
    for (const state of touched.values()) if (!state.deleted) out.push(state.tx);
    cached = out.sort(byDateThenId);
    return cached;
  };
  return {
    all,
    search(query) {
      const found = all().filter((tx) => matches(tx, query));
      if (query.sort === 'date')
        return query.order === 'asc' ? found : [...found].sort((a, b) => -byDate(a, b) || byId(a, b));
      const amount = (tx: CanonicalTransaction) =>
        new Big(((tx[query.sort] as { amount?: string } | undefined)?.amount ?? '0') as string);
      const direction = query.order === 'asc' ? 1 : -1;
      return [...found].sort((a, b) => direction * amount(a).cmp(amount(b)) || byId(a, b));
    },
    timeline(sinceMs) {
      if (sinceMs === null) return all();
      const out: CanonicalTransaction[] = [];
      for (let i = 0; i < portfolio.count; i += 1) {
        if (touched.has(portfolio.idOf(i))) continue;
        if (portfolio.core(i).lastModifiedSec * 1000 >= sinceMs) out.push(portfolio.timelineItem(i));
      }
      for (const state of touched.values()) {
        if (state.atMs < sinceMs) continue;
        out.push(state.deleted ? { ...state.tx, deleted: true } : state.tx);
      }
      return out.sort(byDateThenId);
    },
  };
}

function byDate(a: CanonicalTransaction, b: CanonicalTransaction): number {
  return Date.parse(a.date as string) - Date.parse(b.date as string);
}

function byId(a: CanonicalTransaction, b: CanonicalTransaction): number {
  const x = String(a.id);
  const y = String(b.id);
  return x < y ? -1 : x > y ? 1 : 0;
}

function byDateThenId(a: CanonicalTransaction, b: CanonicalTransaction): number {
  return byDate(a, b) || byId(a, b);
}

/** Whether `tx` matches the search's filters (spec rule 1: with `h`, only the hash counts). */
function matches(tx: CanonicalTransaction, query: SearchQuery): boolean {
  if (query.hash !== null) return tx.hash === query.hash;
  const at = Date.parse(tx.date as string);
  if (query.startMs !== null && at < query.startMs) return false;
  if (query.endMs !== null && at >= query.endMs) return false;
  if (query.category !== null && tx.category !== query.category) return false;
  if (query.protocol !== null && tx.protocol !== query.protocol) return false;
  if (query.tokens.length > 0) {
    const symbols = ((tx.movements as { symbol?: string }[] | undefined) ?? []).map((m) => m.symbol);
    if (!query.tokens.some((token) => symbols.includes(token))) return false;
  }
  return true;
}
