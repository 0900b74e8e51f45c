import {
  ALL_TOKENS,
  CATEGORIES,
  type CategorySpec,
  type Leg,
  MEMOS,
  PROTOCOLS,
  STABLES,
  TOKENS,
  TOTAL_WEIGHT,
  type Token,
} from './catalog.ts';
import { formatCents, formatUnits, formatUnitsTrimmed } from './decimal.ts';
import {
  HOSTILE_AMOUNTS,
  HOSTILE_EXTRA_KEYS,
  HOSTILE_TEXTS,
  HOSTILE_VALUES,
  isHostileProfile,
} from './hostile.ts';
import { guid, hash32, mix32, Rng, stringHash32 } from './random.ts';
import { type StoryTx, writeStory } from './story.ts';
import type { CanonicalTransaction, SimulatedProfile } from './types.ts';

export { ALL_TOKENS, CATEGORIES, PROTOCOLS, TOKENS } from './catalog.ts';
export {
  HOSTILE_AMOUNTS,
  HOSTILE_EXTRA_KEYS,
  HOSTILE_LONG_LENGTH,
  HOSTILE_TEXTS,
  HOSTILE_VALUES,
  type HostileProfile,
  isHostileProfile,
} from './hostile.ts';

/**
 * The seeded data of one simulated portfolio. Nothing per transaction is stored: transaction `i`
 * is rebuilt from (seed, profile name, i) on demand, and its date is non-decreasing in `i`, so a
 * date window is two binary searches and index order is the default sort (date asc, id asc).
 */

/** First generated date: 2023-01-01T00:00:00Z (seconds). */
const START_SEC = Date.UTC(2023, 0, 1) / 1000;
/** Span of generated dates: up to 2026-01-01T00:00:00Z exclusive. */
const SPAN_SEC = Date.UTC(2026, 0, 1) / 1000 - START_SEC;

/** Largest transaction count the demo story is told for; a larger profile serves random data. */
export const STORY_LIMIT = 20_000;

/** No edit or deletion happens after 2026-02-01T00:00:00Z. */
const LAST_EDIT_SEC = Date.UTC(2026, 1, 1) / 1000;

const SALT = {
  date: 1,
  deleted: 2,
  core: 3,
  hashBlock: 4,
  hashShared: 5,
  hashOwn: 6,
  ids: 7,
  hostile: 8,
} as const;

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

function crockford(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let k = 0; k < width; k += 1) {
    out = (CROCKFORD[rest % 32] ?? '0') + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** ISO-8601 UTC instant with milliseconds and `Z`. */
export function isoInstant(ms: number): string {
  return new Date(ms).toISOString();
}

/** An account of a simulated portfolio. */
export interface Account {
  id: string;
  name: string;
  type: string;
}

/** A ledger of a simulated portfolio, in one of its accounts. */
export interface Ledger {
  id: string;
  accountId: string;
  name: string;
  source: { sourceGuid: string; name: string };
}

/** The compact facts of one transaction that filters and sorts need. */
export interface TxCore {
  category: string;
  subType: string;
  protocol: string | null;
  /**
   * Token index (into ALL_TOKENS) and sign per movement; the story's legs carry their exact base
   * units and may have no value.
   */
  legs: { token: number; sign: Leg; valueCents: number; units?: bigint; noValue?: true }[];
  valueCents: number;
  feeCents: number;
  feeToken: number;
  ledger: number;
  /** lastModifiedDate in seconds since the epoch. */
  lastModifiedSec: number;
  memo: string | null;
  /** Seed for the remaining free digits of the amounts. */
  amountSeed: number;
  /** The story's fee in base units of the fee token (else derived from `feeCents`). */
  feeUnits?: bigint;
  /** The story's transaction without a value. */
  noValue?: true;
}

export type { CanonicalTransaction } from './types.ts';

/** One simulated portfolio: accounts, ledgers and a lazily generated transaction list. */
export class Portfolio {
  readonly profile: SimulatedProfile;
  readonly count: number;
  readonly accounts: readonly Account[];
  readonly ledgers: readonly Ledger[];
  private readonly pseed: number;
  private readonly slotSec: number;
  private readonly hostile: boolean;
  /** The demo story's transactions, by index (`null`: deleted); absent for random data. */
  private readonly story: readonly (StoryTx | null)[] | undefined;
  private cachedProtocols: string[] | undefined;

  constructor(profile: SimulatedProfile, seed: number) {
    this.profile = profile;
    this.hostile = isHostileProfile(profile);
    this.count = profile.transactions;
    this.pseed = hash32(seed >>> 0, stringHash32(profile.name));
    this.slotSec = this.count > 0 ? Math.floor(SPAN_SEC / this.count) : 0;
    const rng = new Rng(hash32(this.pseed, 0xacc));
    const accounts: Account[] = [];
    const ledgers: Ledger[] = [];
    const accountKinds = [
      { type: 'wallet', names: ['Main wallet', 'Cold storage', 'Hot wallet'] },
      { type: 'exchange', names: ['Coinbase', 'Kraken', 'Binance'] },
      { type: 'defi', names: ['DeFi vault', 'Yield wallet'] },
    ];
    const accountCount = rng.int(3, 5);
    for (let a = 0; a < accountCount; a += 1) {
      const kind = accountKinds[a % accountKinds.length] ?? { type: 'wallet', names: ['Wallet'] };
      const label = rng.pick(kind.names);
      const account = { id: `acc_${rng.hex(12)}`, name: `${label} ${a + 1}`, type: kind.type };
      accounts.push(account);
      const ledgerCount = rng.int(1, 3);
      for (let l = 0; l < ledgerCount; l += 1) {
        const chain = rng.pick(['Ethereum', 'Solana', 'Bitcoin', 'Arbitrum']);
        ledgers.push({
          id: `led_${rng.hex(12)}`,
          accountId: account.id,
          name: `${account.name} ${chain}`,
          source: {
            sourceGuid: guid(rng),
            name: kind.type === 'exchange' ? `${label} API` : `${chain} node`,
          },
        });
      }
    }
    this.accounts = accounts;
    this.ledgers = ledgers;
    // The story is written eagerly (a few hundred bytes per transaction): told up to STORY_LIMIT.
    this.story =
      profile.story === true && !this.hostile && this.count > 0 && this.count <= STORY_LIMIT
        ? writeStory({
            seed: this.pseed,
            count: this.count,
            accountTypes: accounts.map((a) => a.type),
            ledgerAccounts: ledgers.map((l) => accounts.findIndex((a) => a.id === l.accountId)),
            tokens: ALL_TOKENS,
            isDeleted: (i) => this.isDeleted(i),
            slotDateSec: (i) => this.slotDateSec(i),
            slotSec: this.slotSec,
          })
        : undefined;
  }

  /** Date (seconds) of the slot of index `at`: its share of the span plus a jitter inside the slot. */
  private slotDateSec(at: number): number {
    // The jitter stays below the smallest gap between slot starts, so order is preserved.
    const base = START_SEC + Math.floor((at * SPAN_SEC) / this.count);
    const jitter = this.slotSec > 0 ? hash32(this.pseed, at, SALT.date) % this.slotSec : 0;
    return base + jitter;
  }

  /**
   * Date of transaction `i` in seconds; non-decreasing in `i`. Rows that share a hash are one
   * on-chain transaction, so they share the date of the block's first row (equal dates, ordered
   * by id).
   */
  dateSec(i: number): number {
    if (this.story !== undefined) return this.slotDateSec(this.story[i]?.dateOf ?? i);
    const block = Math.floor(i / 4);
    return this.slotDateSec(this.sharesHash(block) ? block * 4 : i);
  }

  /** Date of transaction `i` in milliseconds. */
  dateMs(i: number): number {
    return this.dateSec(i) * 1000;
  }

  /** Whether transaction `i` is deleted (about 3 %); cheap, without building the transaction. */
  isDeleted(i: number): boolean {
    return hash32(this.pseed, i, SALT.deleted) % 1000 < 30;
  }

  /** Hash of transaction `i`; rows of some blocks of four share one hash. */
  hashOf(i: number): string {
    return `0x${new Rng(this.hashSeed(i)).hex(64)}`;
  }

  /** The first 32 bits of `hashOf(i)` (its hex digits 3..10), without building the string. */
  hashHead(i: number): number {
    return new Rng(this.hashSeed(i)).u32();
  }

  private hashSeed(i: number): number {
    // In the story only the two sides of a move share a hash.
    if (this.story !== undefined) return hash32(this.pseed, this.story[i]?.hashOf ?? i, SALT.hashOwn);
    const block = Math.floor(i / 4);
    return this.sharesHash(block)
      ? hash32(this.pseed, block, SALT.hashShared)
      : hash32(this.pseed, i, SALT.hashOwn);
  }

  /** Whether the four rows of `block` share one hash (about 8 % of blocks). */
  private sharesHash(block: number): boolean {
    return hash32(this.pseed, block, SALT.hashBlock) % 100 < 8;
  }

  /** Stable unique id, ordered like the index for equal dates (ULID-like, 26 characters). */
  idOf(i: number): string {
    const tail = mix32(hash32(this.pseed, i, SALT.ids));
    return `tx_${crockford(this.dateMs(i), 10)}${crockford(i, 6)}${crockford(tail, 7)}${crockford(tail >>> 3, 3)}`;
  }

  /**
   * The index of the live transaction `id` (as {@link idOf} writes it), or undefined: read from the
   * id's index digits and checked, not searched for.
   */
  liveIndexOf(id: string): number | undefined {
    const digits = /^tx_[0-9A-Z]{10}([0-9A-Z]{6})[0-9A-Z]{10}$/.exec(id)?.[1];
    if (digits === undefined) return undefined;
    let i = 0;
    for (const digit of digits) i = i * 32 + CROCKFORD.indexOf(digit);
    return i >= 0 && i < this.count && this.idOf(i) === id && !this.isDeleted(i) ? i : undefined;
  }

  /** The filter and sort facts of transaction `i`. */
  core(i: number): TxCore {
    const random = this.randomCore(i);
    const told = this.story?.[i];
    if (told === undefined || told === null) return random;
    return {
      category: told.category,
      subType: told.subType,
      protocol: told.protocol,
      legs: told.legs,
      // A missing value sorts as zero.
      valueCents: told.noValue === true ? 0 : Math.max(0, ...told.legs.map((l) => l.valueCents)),
      feeCents: told.feeCents,
      feeToken: tokenIndex('ETH'),
      feeUnits: told.feeUnits,
      ledger: told.ledger,
      lastModifiedSec: random.lastModifiedSec,
      memo: told.category === 'transfer' ? random.memo : null,
      amountSeed: random.amountSeed,
      ...(told.noValue === true ? { noValue: true as const } : {}),
    };
  }

  /** The random facts of transaction `i` (the story keeps their edit times). */
  private randomCore(i: number): TxCore {
    const rng = new Rng(hash32(this.pseed, i, SALT.core));
    let roll = rng.next() * TOTAL_WEIGHT;
    let spec = CATEGORIES[0] as CategorySpec;
    for (const c of CATEGORIES) {
      spec = c;
      roll -= c.weight;
      if (roll < 0) break;
    }
    const variant = rng.pick(spec.variants);
    const protocol = rng.pick(variant.protocols);
    const valueCents = rng.int(1, 99_999) * 10 ** rng.int(0, 3);
    const legs: TxCore['legs'] = [];
    const used = new Set<number>();
    variant.legs.forEach((sign, k) => {
      let token: number;
      const fixed = variant.tokens?.[k];
      if (fixed !== undefined) token = tokenIndex(fixed);
      else if (variant.subType === 'buy' && k === 0) token = tokenIndex(rng.pick(STABLES));
      else if (variant.subType === 'sell' && k === 1) token = tokenIndex(rng.pick(STABLES));
      else {
        do token = rng.int(0, TOKENS.length - 1);
        while (used.has(token));
      }
      used.add(token);
      // The second leg of a swap receives a little less than the first gives (slippage).
      const legValue = k === 0 ? valueCents : Math.floor((valueCents * rng.int(985, 1000)) / 1000);
      legs.push({ token, sign, valueCents: legValue });
    });
    const firstSymbol = TOKENS[legs[0]?.token ?? 0]?.symbol;
    const feeToken = tokenIndex(firstSymbol === 'SOL' ? 'SOL' : firstSymbol === 'BTC' ? 'BTC' : 'ETH');
    const offChain = protocol === null && (spec.category === 'trade' || spec.category === 'transfer');
    let feeCents = offChain && rng.chance(0.3) ? 0 : rng.int(1, 5_000);
    let value = valueCents;
    if (spec.category === 'fee') {
      const leg = legs[0];
      if (leg) leg.valueCents = feeCents;
      value = feeCents;
    } else if (spec.category === 'income' && rng.chance(0.5)) {
      feeCents = 0;
    }
    const dateSec = this.dateSec(i);
    let lastModifiedSec: number;
    if (this.isDeleted(i)) lastModifiedSec = dateSec + rng.int(1, 200) * 86_400 + rng.int(0, 86_399);
    else if (rng.chance(0.12)) lastModifiedSec = dateSec + rng.int(1, 400) * 86_400 + rng.int(0, 86_399);
    else lastModifiedSec = dateSec + rng.int(30, 3_600);
    // Edits stop a month after the last generated date, like a portfolio that was closed then.
    lastModifiedSec = Math.min(lastModifiedSec, Math.max(dateSec + 30, LAST_EDIT_SEC));
    const memo = spec.category === 'transfer' && rng.chance(0.4) ? rng.pick(MEMOS) : null;
    return {
      category: spec.category,
      subType: variant.subType,
      protocol,
      legs,
      valueCents: value,
      feeCents,
      feeToken,
      ledger: rng.int(0, Math.max(0, this.ledgers.length - 1)),
      lastModifiedSec,
      memo,
      amountSeed: rng.u32(),
    };
  }

  /** Transaction `i` in the canonical GAPS.md layout, with extra `memo`/`chainId` on some. */
  transaction(i: number): CanonicalTransaction {
    const core = this.core(i);
    const ledger = this.ledgers[core.ledger];
    const rng = new Rng(core.amountSeed);
    const movements = core.legs.map((leg) => {
      const token = ALL_TOKENS[leg.token] as Token;
      // Quantity in base units: value / price, plus free low digits so all decimals are used.
      const scale = 10n ** BigInt(token.decimals);
      const noise = token.decimals > 4 ? BigInt(rng.int(0, 9_999)) : 0n;
      const quantity = leg.units ?? (BigInt(leg.valueCents) * scale) / BigInt(token.priceCents) + noise;
      return {
        symbol: token.symbol,
        amount: formatUnits(BigInt(leg.sign) * quantity, token.decimals),
        value: leg.noValue === true ? null : formatCents(leg.sign * leg.valueCents),
      };
    });
    const feeToken = TOKENS[core.feeToken] as Token;
    const feeQuantity =
      core.feeUnits ??
      (BigInt(core.feeCents) * 10n ** BigInt(feeToken.decimals)) / BigInt(feeToken.priceCents);
    const tx: CanonicalTransaction = {
      id: this.idOf(i),
      date: isoInstant(this.dateMs(i)),
      type: core.category,
      subType: core.subType,
      category: core.category,
      protocol: core.protocol,
      hash: this.hashOf(i),
      accountId: ledger?.accountId ?? null,
      ledgerId: ledger?.id ?? null,
      movements,
      value: { amount: core.noValue === true ? null : formatCents(core.valueCents), currency: 'USD' },
      fee: {
        amount: formatCents(core.feeCents),
        currency: 'USD',
        symbol: feeToken.symbol,
        quantity: formatUnitsTrimmed(feeQuantity, feeToken.decimals),
      },
      lastModifiedDate: isoInstant(core.lastModifiedSec * 1000),
    };
    if (core.protocol !== null) tx.chainId = 1;
    if (core.memo !== null) tx.memo = core.memo;
    return this.hostile ? this.hostileTransaction(i, tx) : tx;
  }

  /**
   * Transaction `i` of a hostile profile: `tx` with its text, amounts and extra fields taken from
   * the hostile catalogues. Value `k` of transaction `i` is entry `(i * 13 + k) % n` of its
   * catalogue, so every entry appears within a few transactions; the id keeps the generated one
   * (unique, ordered) behind a hostile prefix.
   */
  private hostileTransaction(i: number, tx: CanonicalTransaction): CanonicalTransaction {
    const text = (k: number) => HOSTILE_TEXTS[(i * 13 + k) % HOSTILE_TEXTS.length] as string;
    const amount = (k: number) => HOSTILE_AMOUNTS[(i * 5 + k) % HOSTILE_AMOUNTS.length] as string;
    const value = (k: number) => HOSTILE_VALUES[(i * 5 + k) % HOSTILE_VALUES.length] as string;
    const prefixes = ['', '=', '+', '-', '@', '\t', '\r', "'=", ' ', '\u0000', '🚀', '\ud800'];
    // A movement without a symbol is refused by the export (it names the field): not hostile, broken.
    const symbol = (k: number) => text(k) || text(k + 1);
    const movements = (tx.movements as unknown[]).map((_, j) => ({
      symbol: symbol(10 + j),
      amount: amount(j),
      value: value(j),
      // An unknown field inside the movement: an extra column of the movements report.
      note: text(20 + j),
    }));
    const extras: Record<string, unknown> = {};
    HOSTILE_EXTRA_KEYS.forEach((key, k) => {
      // Defined, not assigned: assigning `__proto__` would set the prototype instead.
      if ((i + k) % 3 === 0) {
        Object.defineProperty(extras, key, {
          value: text(30 + k),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
    });
    return {
      id: `${prefixes[i % prefixes.length]}${tx.id as string}`,
      date: tx.date,
      type: text(0),
      subType: text(1),
      category: text(2),
      protocol: i % 4 === 0 ? null : text(3),
      hash: text(4),
      accountId: text(5),
      ledgerId: text(6),
      movements,
      value: { amount: value(7), currency: text(7) },
      fee: { amount: value(8), currency: text(8), symbol: text(9), quantity: amount(9) },
      lastModifiedDate: tx.lastModifiedDate,
      memo: text(12),
      nest: { inner: text(13), '-deeper': { '=x': text(14) } },
      ...extras,
    };
  }

  /** Timeline item `i`: the transaction plus its ledger's `source` and, if deleted, `deleted: true`. */
  timelineItem(i: number): CanonicalTransaction {
    const tx = this.transaction(i);
    const ledger = this.hostile
      ? this.ledgers[this.core(i).ledger]
      : this.ledgers.find((l) => l.id === tx.ledgerId);
    tx.source = {
      sourceGuid: ledger?.source.sourceGuid ?? null,
      name: this.hostile ? HOSTILE_TEXTS[(i * 7) % HOSTILE_TEXTS.length] : (ledger?.source.name ?? null),
    };
    if (this.isDeleted(i)) tx.deleted = true;
    return tx;
  }

  /** Distinct non-null protocols of non-deleted transactions, sorted. */
  protocols(): string[] {
    if (this.cachedProtocols) return this.cachedProtocols;
    const found = new Set<string>();
    for (let i = 0; i < this.count && found.size < PROTOCOLS.length; i += 1) {
      if (this.isDeleted(i)) continue;
      const protocol = this.core(i).protocol;
      if (protocol !== null) found.add(protocol);
    }
    this.cachedProtocols = [...found].sort();
    return this.cachedProtocols;
  }

  /** Dates of the first and last non-deleted transactions, in ms; null when there are none. */
  dateBounds(): { earliestMs: number | null; latestMs: number | null } {
    let first = 0;
    while (first < this.count && this.isDeleted(first)) first += 1;
    if (first >= this.count) return { earliestMs: null, latestMs: null };
    let last = this.count - 1;
    while (last > first && this.isDeleted(last)) last -= 1;
    return { earliestMs: this.dateMs(first), latestMs: this.dateMs(last) };
  }
}

function tokenIndex(symbol: string | undefined): number {
  const index = TOKENS.findIndex((t) => t.symbol === symbol);
  return Math.max(index, 0);
}
