import { formatCents, formatUnits, formatUnitsTrimmed } from './decimal.ts';
import { guid, hash32, mix32, Rng, stringHash32 } from './random.ts';
import type { SimulatedProfile } from './types.ts';

/**
 * The seeded data of one simulated portfolio. Nothing per transaction is stored: transaction `i`
 * is rebuilt from (seed, profile name, i) on demand, and its date is non-decreasing in `i`, so a
 * date window is two binary searches and index order is the default sort (date asc, id asc).
 */

interface Token {
  symbol: string;
  decimals: number;
  /** Reference price in US cents per whole token (an integer). */
  priceCents: number;
}

/** Tokens of the generated data. */
export const TOKENS: readonly Token[] = [
  { symbol: 'ETH', decimals: 18, priceCents: 300_000 },
  { symbol: 'USDC', decimals: 6, priceCents: 100 },
  { symbol: 'BTC', decimals: 8, priceCents: 6_000_000 },
  { symbol: 'WBTC', decimals: 8, priceCents: 5_990_000 },
  { symbol: 'DAI', decimals: 18, priceCents: 100 },
  { symbol: 'SOL', decimals: 9, priceCents: 15_000 },
  { symbol: 'stETH', decimals: 18, priceCents: 299_000 },
  { symbol: 'USDT', decimals: 6, priceCents: 100 },
];

/** DeFi protocols of the generated data (non-DeFi transactions carry `null`). */
export const PROTOCOLS = ['Aave V3', 'Compound V3', 'Curve', 'Lido', 'Uniswap V3'] as const;

type Leg = -1 | 1;

interface Variant {
  subType: string;
  legs: readonly Leg[];
  protocols: readonly (string | null)[];
  /** Token symbols per leg; a random distinct token when absent. */
  tokens?: readonly string[];
}

interface CategorySpec {
  category: string;
  weight: number;
  variants: readonly Variant[];
}

const STABLES = ['USDC', 'USDT', 'DAI'];

/** The GAPS.md `cf` vocabulary; `type` uses the same word, `subType` refines it. */
export const CATEGORIES: readonly CategorySpec[] = [
  {
    category: 'trade',
    weight: 30,
    variants: [
      { subType: 'swap', legs: [-1, 1], protocols: ['Uniswap V3', 'Curve', null] },
      { subType: 'buy', legs: [-1, 1], protocols: [null] },
      { subType: 'sell', legs: [-1, 1], protocols: [null] },
    ],
  },
  {
    category: 'transfer',
    weight: 20,
    variants: [
      { subType: 'deposit', legs: [1], protocols: [null] },
      { subType: 'withdrawal', legs: [-1], protocols: [null] },
      { subType: 'internal', legs: [-1], protocols: [null] },
    ],
  },
  {
    category: 'income',
    weight: 8,
    variants: [
      { subType: 'airdrop', legs: [1], protocols: [null] },
      { subType: 'interest', legs: [1], protocols: ['Aave V3', 'Compound V3'] },
      { subType: 'reward', legs: [1], protocols: ['Lido'], tokens: ['stETH'] },
    ],
  },
  { category: 'expense', weight: 5, variants: [{ subType: 'payment', legs: [-1], protocols: [null] }] },
  {
    category: 'staking',
    weight: 8,
    variants: [
      { subType: 'stake', legs: [-1, 1], protocols: ['Lido'], tokens: ['ETH', 'stETH'] },
      { subType: 'unstake', legs: [-1, 1], protocols: ['Lido'], tokens: ['stETH', 'ETH'] },
      { subType: 'delegate', legs: [-1], protocols: [null], tokens: ['SOL'] },
    ],
  },
  {
    category: 'lending',
    weight: 8,
    variants: [
      { subType: 'supply', legs: [-1], protocols: ['Aave V3', 'Compound V3'] },
      { subType: 'borrow', legs: [1], protocols: ['Aave V3', 'Compound V3'] },
      { subType: 'repay', legs: [-1], protocols: ['Aave V3', 'Compound V3'] },
      { subType: 'withdraw', legs: [1], protocols: ['Aave V3', 'Compound V3'] },
    ],
  },
  {
    category: 'liquidity',
    weight: 6,
    variants: [
      { subType: 'add-liquidity', legs: [-1, -1], protocols: ['Uniswap V3', 'Curve'] },
      { subType: 'remove-liquidity', legs: [1, 1], protocols: ['Uniswap V3', 'Curve'] },
    ],
  },
  {
    category: 'bridge',
    weight: 4,
    variants: [
      { subType: 'bridge-out', legs: [-1], protocols: [null] },
      { subType: 'bridge-in', legs: [1], protocols: [null] },
    ],
  },
  {
    category: 'fee',
    weight: 6,
    variants: [{ subType: 'gas', legs: [-1], protocols: [null], tokens: ['ETH'] }],
  },
  {
    category: 'nft',
    weight: 3,
    variants: [
      { subType: 'mint', legs: [-1], protocols: [null], tokens: ['ETH'] },
      { subType: 'purchase', legs: [-1], protocols: [null], tokens: ['ETH'] },
      { subType: 'sale', legs: [1], protocols: [null], tokens: ['ETH'] },
    ],
  },
  { category: 'other', weight: 2, variants: [{ subType: 'adjustment', legs: [1], protocols: [null] }] },
];

const TOTAL_WEIGHT = CATEGORIES.reduce((sum, c) => sum + c.weight, 0);

const MEMOS = [
  'Payroll, March',
  'He said "thanks"',
  '=1+1 looks like a formula',
  'Rent\nsecond line',
  'Ünïcödé ✓ memo',
  'Invoice 2025-0042',
];

/** First generated date: 2023-01-01T00:00:00Z (seconds). */
const START_SEC = Date.UTC(2023, 0, 1) / 1000;
/** Span of generated dates: up to 2026-01-01T00:00:00Z exclusive. */
const SPAN_SEC = Date.UTC(2026, 0, 1) / 1000 - START_SEC;

/** No edit or deletion happens after 2026-02-01T00:00:00Z. */
const LAST_EDIT_SEC = Date.UTC(2026, 1, 1) / 1000;

const SALT = { date: 1, deleted: 2, core: 3, hashBlock: 4, hashShared: 5, hashOwn: 6, ids: 7 } as const;

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

export interface Account {
  id: string;
  name: string;
  type: string;
}

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
  /** Token index (into TOKENS) and sign per movement. */
  legs: { token: number; sign: Leg; valueCents: number }[];
  valueCents: number;
  feeCents: number;
  feeToken: number;
  ledger: number;
  /** lastModifiedDate in seconds since the epoch. */
  lastModifiedSec: number;
  memo: string | null;
  /** Seed for the remaining free digits of the amounts. */
  amountSeed: number;
}

/** A transaction in the canonical default layout of GAPS.md (plus extra fields). */
export type CanonicalTransaction = Record<string, unknown>;

/** One simulated portfolio: accounts, ledgers and a lazily generated transaction list. */
export class Portfolio {
  readonly profile: SimulatedProfile;
  readonly count: number;
  readonly accounts: readonly Account[];
  readonly ledgers: readonly Ledger[];
  private readonly pseed: number;
  private readonly slotSec: number;
  private cachedProtocols: string[] | undefined;

  constructor(profile: SimulatedProfile, seed: number) {
    this.profile = profile;
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
  }

  /**
   * Date of transaction `i` in seconds; non-decreasing in `i`. Rows that share a hash are one
   * on-chain transaction, so they share the date of the block's first row (equal dates, ordered
   * by id).
   */
  dateSec(i: number): number {
    const block = Math.floor(i / 4);
    const at = this.sharesHash(block) ? block * 4 : i;
    // The jitter stays below the smallest gap between slot starts, so order is preserved.
    const base = START_SEC + Math.floor((at * SPAN_SEC) / this.count);
    const jitter = this.slotSec > 0 ? hash32(this.pseed, at, SALT.date) % this.slotSec : 0;
    return base + jitter;
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

  /** The filter and sort facts of transaction `i`. */
  core(i: number): TxCore {
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
      const token = TOKENS[leg.token] as Token;
      // Quantity in base units: value / price, plus free low digits so all decimals are used.
      const scale = 10n ** BigInt(token.decimals);
      const noise = token.decimals > 4 ? BigInt(rng.int(0, 9_999)) : 0n;
      const quantity = (BigInt(leg.valueCents) * scale) / BigInt(token.priceCents) + noise;
      return {
        symbol: token.symbol,
        amount: formatUnits(BigInt(leg.sign) * quantity, token.decimals),
        value: formatCents(leg.sign * leg.valueCents),
      };
    });
    const feeToken = TOKENS[core.feeToken] as Token;
    const feeQuantity =
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
      value: { amount: formatCents(core.valueCents), currency: 'USD' },
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
    return tx;
  }

  /** Timeline item `i`: the transaction plus its ledger's `source` and, if deleted, `deleted: true`. */
  timelineItem(i: number): CanonicalTransaction {
    const tx = this.transaction(i);
    const ledger = this.ledgers.find((l) => l.id === tx.ledgerId);
    tx.source = { sourceGuid: ledger?.source.sourceGuid ?? null, name: ledger?.source.name ?? null };
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
