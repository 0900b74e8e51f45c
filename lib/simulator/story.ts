/**
 * The demo's story: a portfolio that is coherent the way a real one is, instead of independent
 * random rows. Money enters as US dollars deposited on an exchange; tokens are bought, sold,
 * swapped, staked, lent and moved between the client's own accounts (both sides of a move share
 * its hash and instant); stablecoins trade at their peg; and no account ever holds less than zero
 * of a token. A few cases are planted on purpose, one for each kind of adjustment an accountant
 * makes (see {@link PLANTED}).
 *
 * The story is generated once per portfolio, in index order, from the portfolio's seed: index `i`
 * keeps the date slot of the random data (so dates stay non-decreasing in `i`), deleted indices
 * keep random content that never counts.
 */
import { hash32, Rng } from './random.ts';

/** A token of the story: the generated tokens (same indices) plus the story's own. */
export interface StoryToken {
  symbol: string;
  decimals: number;
  /** Reference price in US cents per whole token; 0 for a token without a market. */
  priceCents: number;
}

/** The story's tokens after the generated ones: fiat dollars and a spam airdrop. */
export const STORY_TOKENS: readonly StoryToken[] = [
  { symbol: 'USD', decimals: 2, priceCents: 100 },
  { symbol: 'ETHG-CLAIM', decimals: 18, priceCents: 0 },
];

/** One movement of a story transaction: exact base units, and whether its value is missing. */
export interface StoryLeg {
  token: number;
  sign: -1 | 1;
  valueCents: number;
  units: bigint;
  noValue?: true;
}

/** One transaction of the story (what {@link Portfolio.core} needs, with exact quantities). */
export interface StoryTx {
  category: string;
  subType: string;
  protocol: string | null;
  ledger: number;
  legs: StoryLeg[];
  /** Fee paid in ETH from the same account, in base units, and its value. */
  feeUnits: bigint;
  feeCents: number;
  /** The transaction's value is missing (a planted case). */
  noValue?: true;
  /** Index whose date slot and hash this transaction takes (itself, or the other side of a move). */
  dateOf: number;
  hashOf: number;
}

/** What the story needs to know about the portfolio. */
export interface StoryInput {
  seed: number;
  count: number;
  /** Account types, by account index (`wallet`, `exchange`, `defi`). */
  accountTypes: readonly string[];
  /** The account index of each ledger. */
  ledgerAccounts: readonly number[];
  /** Every token: the generated ones, then {@link STORY_TOKENS}. */
  tokens: readonly StoryToken[];
  isDeleted(i: number): boolean;
  /** The date (seconds) of slot `i`. */
  slotDateSec(i: number): number;
  /** Seconds between two slot starts. */
  slotSec: number;
}

/**
 * The planted cases, by where they sit in the history (a share of the transaction count; all in
 * the last year, the demo's period). Each is the only incoherence of its kind.
 */
export const PLANTED = {
  /** Cold storage sells 2 BTC it held before the service's history starts: no lots (opening-lots). */
  preHistory: 0.7,
  /** 0.5 BTC arrives from the client's account at another exchange: no counterpart (cost-basis). */
  outsideTransfer: 0.74,
  /** An unsolicited token no market values (spam), received twice. */
  spam: [0.78, 0.9],
  /** Interest paid in USDC whose value the service does not have (value, at the peg). */
  stableNoValue: 0.82,
  /** A move of ETH between own wallets whose in side is recorded 3 days later (transfer-pair). */
  lateSide: 0.86,
} as const;

const DAY = 86_400;
const PRE_HISTORY_BTC = 200_000_000n;
const OUTSIDE_BTC = 50_000_000n;

type Balances = Map<string, bigint>;

/** The story's state while it is written: balances and protocol positions per account. */
interface State {
  rng: Rng;
  input: StoryInput;
  balances: Balances;
  /** Quantity supplied/added/borrowed per `kind:account:token:protocol`. */
  positions: Balances;
  /** In sides waiting for their index. */
  pending: Map<number, StoryTx>;
  /** Indices the planted cases take. */
  reserved: ReadonlySet<number>;
  i: number;
}

const sym = (input: StoryInput, symbol: string) => input.tokens.findIndex((t) => t.symbol === symbol);

/** Price of a token at an instant in thousandths of a cent: a drift with a cycle; stablecoins at their peg. */
function priceMilli(input: StoryInput, token: number, sec: number): bigint {
  const t = input.tokens[token] as StoryToken;
  // Dollars are the value currency itself.
  if (t.symbol === 'USD') return 100_000n;
  const start = input.slotDateSec(0);
  const progress = input.count > 1 ? (sec - start) / (input.slotSec * input.count) : 0;
  const phase = (token * 1.7) % 6.28;
  const stable = t.priceCents === 100;
  const factor = stable
    ? 1 + 0.0008 * Math.sin(progress * 40 + phase)
    : 0.6 + 0.8 * progress + 0.2 * Math.sin(progress * 12 + phase);
  return BigInt(Math.round(t.priceCents * 1000 * factor));
}

function worth(input: StoryInput, token: number, units: bigint, sec: number): number {
  const t = input.tokens[token] as StoryToken;
  return Number((units * priceMilli(input, token, sec)) / (1000n * 10n ** BigInt(t.decimals)));
}

function unitsFor(input: StoryInput, token: number, cents: number, sec: number): bigint {
  const t = input.tokens[token] as StoryToken;
  return (BigInt(cents) * 1000n * 10n ** BigInt(t.decimals)) / priceMilli(input, token, sec);
}

const key = (account: number, token: number) => `${account}:${token}`;
const held = (s: State, account: number, token: number) => s.balances.get(key(account, token)) ?? 0n;

function credit(s: State, account: number, token: number, units: bigint): void {
  s.balances.set(key(account, token), held(s, account, token) + units);
}

/** A share (in per mille, drawn between `lo` and `hi`) of a quantity. */
function share(s: State, units: bigint, lo: number, hi: number): bigint {
  return (units * BigInt(s.rng.int(lo, hi))) / 1000n;
}

function ledgerOf(s: State, account: number): number {
  const ledgers = s.input.ledgerAccounts.flatMap((a, l) => (a === account ? [l] : []));
  return s.rng.pick(ledgers);
}

function accountsOf(s: State, types: readonly string[]): number[] {
  return s.input.accountTypes.flatMap((type, a) => (types.includes(type) ? [a] : []));
}

/** Tokens (by index) an account holds at least `min` cents of. */
function holdings(s: State, account: number, sec: number, min = 2_000, tokens?: readonly number[]): number[] {
  const out: number[] = [];
  const candidates = tokens ?? s.input.tokens.map((_, k) => k);
  for (const token of candidates) {
    const t = s.input.tokens[token] as StoryToken;
    if (t.priceCents === 0 || t.symbol === 'USD') continue;
    if (worth(s.input, token, held(s, account, token), sec) >= min) out.push(token);
  }
  return out;
}

function leg(s: State, token: number, sign: -1 | 1, units: bigint, sec: number): StoryLeg {
  return { token, sign, units, valueCents: worth(s.input, token, units, sec) };
}

/** A transaction in `account`, applied to the balances, with gas paid in ETH where it holds some. */
function tx(
  s: State,
  account: number,
  spec: { category: string; subType: string; protocol?: string | null; legs: StoryLeg[]; gas?: boolean },
): StoryTx {
  for (const l of spec.legs) credit(s, account, l.token, BigInt(l.sign) * l.units);
  const sec = s.input.slotDateSec(s.i);
  const eth = sym(s.input, 'ETH');
  let feeUnits = 0n;
  if (spec.gas !== false && s.input.accountTypes[account] !== 'exchange') {
    const wanted = unitsFor(s.input, eth, s.rng.int(80, 2_500), sec);
    if (held(s, account, eth) >= wanted) feeUnits = wanted;
  }
  credit(s, account, eth, -feeUnits);
  return {
    category: spec.category,
    subType: spec.subType,
    protocol: spec.protocol ?? null,
    ledger: ledgerOf(s, account),
    legs: spec.legs,
    feeUnits,
    feeCents: feeUnits === 0n ? 0 : worth(s.input, eth, feeUnits, sec),
    dateOf: s.i,
    hashOf: s.i,
  };
}

type Action = (s: State, sec: number) => StoryTx | null;

const MAJORS = ['BTC', 'ETH', 'SOL', 'USDC', 'USDT', 'DAI', 'WBTC'];
const STABLES = ['USDC', 'USDT', 'DAI'];

const deposit: Action = (s) => {
  const account = s.rng.pick(accountsOf(s, ['exchange']));
  const units = BigInt(s.rng.int(20, 400) * 10_000);
  return tx(s, account, {
    category: 'transfer',
    subType: 'deposit',
    legs: [leg(s, sym(s.input, 'USD'), 1, units, 0)],
  });
};

const withdrawFiat: Action = (s) => {
  const usd = sym(s.input, 'USD');
  const account = s.rng.pick(accountsOf(s, ['exchange']));
  if (held(s, account, usd) < 100_000n) return null;
  const units = share(s, held(s, account, usd), 100, 500);
  return tx(s, account, { category: 'transfer', subType: 'withdrawal', legs: [leg(s, usd, -1, units, 0)] });
};

const buy: Action = (s, sec) => {
  const account = s.rng.pick(accountsOf(s, ['exchange']));
  const usd = sym(s.input, 'USD');
  const pay = share(s, held(s, account, usd), 200, 700);
  if (pay < 10_000n) return null;
  const token = sym(s.input, s.rng.pick(MAJORS));
  const cents = Number(pay);
  const units = unitsFor(s.input, token, Math.floor((cents * s.rng.int(985, 999)) / 1000), sec);
  return tx(s, account, {
    category: 'trade',
    subType: 'buy',
    legs: [leg(s, usd, -1, pay, sec), leg(s, token, 1, units, sec)],
  });
};

const sell: Action = (s, sec) => {
  const account = s.rng.pick(accountsOf(s, ['exchange']));
  const tokens = holdings(s, account, sec).filter((t) => !STABLES.includes(s.input.tokens[t]?.symbol ?? ''));
  if (tokens.length === 0) return null;
  const token = s.rng.pick(tokens);
  const units = share(s, held(s, account, token), 100, 600);
  const given = leg(s, token, -1, units, sec);
  const into = sym(s.input, s.rng.chance(0.6) ? 'USD' : s.rng.pick(STABLES));
  const received = unitsFor(s.input, into, Math.floor((given.valueCents * s.rng.int(985, 999)) / 1000), sec);
  return tx(s, account, {
    category: 'trade',
    subType: 'sell',
    legs: [given, leg(s, into, 1, received, sec)],
  });
};

const swap: Action = (s, sec) => {
  const account = s.rng.pick(accountsOf(s, ['wallet', 'defi', 'exchange']));
  const tokens = holdings(s, account, sec);
  if (tokens.length === 0) return null;
  const from = s.rng.pick(tokens);
  const choices = MAJORS.map((m) => sym(s.input, m)).filter((t) => t !== from);
  const to = s.rng.pick(choices);
  const given = leg(s, from, -1, share(s, held(s, account, from), 100, 600), sec);
  const received = unitsFor(s.input, to, Math.floor((given.valueCents * s.rng.int(985, 999)) / 1000), sec);
  return tx(s, account, {
    category: 'trade',
    subType: 'swap',
    protocol: s.rng.pick(['Uniswap V3', 'Curve', null]),
    legs: [given, leg(s, to, 1, received, sec)],
  });
};

/** A move between two own accounts: out here, in on the next index at the same instant and hash. */
function moveBetween(s: State, sec: number, bridge: boolean): StoryTx | null {
  const next = s.i + 1;
  if (next >= s.input.count || s.input.isDeleted(next) || s.pending.has(next) || s.reserved.has(next))
    return null;
  const from = s.rng.int(0, s.input.accountTypes.length - 1);
  const tokens = holdings(s, from, sec);
  if (tokens.length === 0) return null;
  const others = s.input.accountTypes.map((_, a) => a).filter((a) => a !== from);
  const to = s.rng.pick(others);
  const token = s.rng.pick(tokens);
  const units = share(s, held(s, from, token), 200, 900);
  const category = bridge ? 'bridge' : 'transfer';
  const out = tx(s, from, {
    category,
    subType: bridge ? 'bridge-out' : 'withdrawal',
    legs: [leg(s, token, -1, units, sec)],
  });
  s.pending.set(next, {
    category,
    subType: bridge ? 'bridge-in' : 'deposit',
    protocol: null,
    ledger: ledgerOf(s, to),
    legs: [leg(s, token, 1, units, sec)],
    feeUnits: 0n,
    feeCents: 0,
    dateOf: s.i,
    hashOf: s.i,
  });
  credit(s, to, token, units);
  return out;
}

const income: Action = (s, sec) => {
  const account = s.rng.pick(accountsOf(s, ['wallet', 'defi']).concat(accountsOf(s, ['exchange'])));
  const kind = s.rng.int(0, 4);
  if (kind <= 2) {
    const token = sym(s.input, s.rng.pick(['USDC', 'DAI', 'ETH']));
    const units = unitsFor(s.input, token, s.rng.int(300, 20_000), sec);
    const protocol = s.rng.pick(['Aave V3', 'Compound V3']);
    return tx(s, account, {
      category: 'income',
      subType: 'interest',
      protocol,
      legs: [leg(s, token, 1, units, sec)],
      // Claiming interest on chain costs gas now and then (the receipt's Werbungskosten under de).
      gas: s.rng.chance(0.4),
    });
  }
  if (kind === 3) {
    const steth = sym(s.input, 'stETH');
    const units = unitsFor(s.input, steth, s.rng.int(500, 15_000), sec);
    return tx(s, account, {
      category: 'income',
      subType: 'reward',
      protocol: 'Lido',
      legs: [leg(s, steth, 1, units, sec)],
      gas: false,
    });
  }
  const token = sym(s.input, s.rng.pick(['SOL', 'ETH']));
  const units = unitsFor(s.input, token, s.rng.int(1_000, 30_000), sec);
  return tx(s, account, {
    category: 'income',
    subType: 'airdrop',
    legs: [leg(s, token, 1, units, sec)],
    gas: false,
  });
};

/** Exchanges `from` for `to` at the same value in a protocol (stake, unstake). */
function convert(
  s: State,
  sec: number,
  from: string,
  to: string,
  category: string,
  subType: string,
  protocol: string,
) {
  const a = sym(s.input, from);
  const b = sym(s.input, to);
  const accounts = accountsOf(s, ['wallet', 'defi']).filter(
    (acc) => holdings(s, acc, sec, 5_000, [a]).length > 0,
  );
  if (accounts.length === 0) return null;
  const account = s.rng.pick(accounts);
  const given = leg(s, a, -1, share(s, held(s, account, a), 200, 700), sec);
  const received = unitsFor(s.input, b, given.valueCents, sec);
  return tx(s, account, { category, subType, protocol, legs: [given, leg(s, b, 1, received, sec)] });
}

/** Puts a token into (`sign` -1) or takes it back from (+1) a protocol position. */
function position(
  s: State,
  sec: number,
  category: string,
  subType: string,
  sign: -1 | 1,
  borrow = false,
): StoryTx | null {
  const accounts = accountsOf(s, ['wallet', 'defi']);
  const account = s.rng.pick(accounts);
  const protocol = s.rng.pick(
    category === 'liquidity' ? ['Uniswap V3', 'Curve'] : ['Aave V3', 'Compound V3'],
  );
  const slot = (token: number) => `${borrow ? 'debt' : category}:${account}:${token}:${protocol}`;
  const tokens = s.input.tokens
    .map((_, k) => k)
    .filter((k) => MAJORS.includes(s.input.tokens[k]?.symbol ?? ''))
    .filter((k) => {
      const inPosition = s.positions.get(slot(k)) ?? 0n;
      if (borrow)
        return sign === 1
          ? STABLES.includes(s.input.tokens[k]?.symbol ?? '')
          : inPosition > 0n && held(s, account, k) > 0n;
      return sign === -1 ? holdings(s, account, sec, 5_000, [k]).length > 0 : inPosition > 0n;
    });
  const count = category === 'liquidity' ? 2 : 1;
  if (tokens.length < count) return null;
  const picked = s.rng.pick(tokens);
  const chosen = count === 2 ? [picked, s.rng.pick(tokens.filter((t) => t !== picked))] : [picked];
  const legs = chosen.map((token) => {
    const inPosition = s.positions.get(slot(token)) ?? 0n;
    let units: bigint;
    if (borrow && sign === 1) units = unitsFor(s.input, token, s.rng.int(50_000, 500_000), sec);
    else if (borrow)
      units = inPosition < held(s, account, token) ? inPosition : share(s, held(s, account, token), 300, 900);
    else units = sign === -1 ? share(s, held(s, account, token), 200, 600) : share(s, inPosition, 300, 1000);
    const change = borrow ? BigInt(sign) * units : BigInt(-sign) * units;
    s.positions.set(slot(token), inPosition + change);
    return leg(s, token, sign, units, sec);
  });
  if (legs.some((l) => l.units === 0n)) return null;
  return tx(s, account, { category, subType, protocol, legs });
}

/** Spends part of a holding (a fee in ETH, a payment, an NFT). */
function spend(
  s: State,
  sec: number,
  category: string,
  subType: string,
  symbols: readonly string[],
  max: number,
) {
  const tokens = symbols.map((x) => sym(s.input, x));
  const accounts = accountsOf(s, ['wallet', 'defi']).filter(
    (a) => holdings(s, a, sec, 500, tokens).length > 0,
  );
  if (accounts.length === 0) return null;
  const account = s.rng.pick(accounts);
  const token = s.rng.pick(holdings(s, account, sec, 500, tokens));
  const units = share(s, held(s, account, token), 10, max);
  return tx(s, account, {
    category,
    subType,
    legs: [leg(s, token, -1, units, sec)],
    gas: category !== 'fee',
  });
}

const nftSale: Action = (s, sec) => {
  const account = s.rng.pick(accountsOf(s, ['wallet', 'defi']));
  const eth = sym(s.input, 'ETH');
  const units = unitsFor(s.input, eth, s.rng.int(5_000, 200_000), sec);
  return tx(s, account, { category: 'nft', subType: 'sale', legs: [leg(s, eth, 1, units, sec)], gas: false });
};

const ACTIONS: readonly [number, Action][] = [
  [7, deposit],
  [1, withdrawFiat],
  [12, buy],
  [6, sell],
  [8, swap],
  [8, (s, sec) => moveBetween(s, sec, false)],
  [2, (s, sec) => moveBetween(s, sec, true)],
  [8, income],
  [2, (s, sec) => convert(s, sec, 'ETH', 'stETH', 'staking', 'stake', 'Lido')],
  [1, (s, sec) => convert(s, sec, 'stETH', 'ETH', 'staking', 'unstake', 'Lido')],
  [1, (s, sec) => spend(s, sec, 'staking', 'delegate', ['SOL'], 400)],
  [2, (s, sec) => position(s, sec, 'lending', 'supply', -1)],
  [2, (s, sec) => position(s, sec, 'lending', 'withdraw', 1)],
  [1, (s, sec) => position(s, sec, 'lending', 'borrow', 1, true)],
  [1, (s, sec) => position(s, sec, 'lending', 'repay', -1, true)],
  [1, (s, sec) => position(s, sec, 'liquidity', 'add-liquidity', -1)],
  [1, (s, sec) => position(s, sec, 'liquidity', 'remove-liquidity', 1)],
  [4, (s, sec) => spend(s, sec, 'fee', 'gas', ['ETH'], 20)],
  [2, (s, sec) => spend(s, sec, 'expense', 'payment', ['USDC', 'USDT', 'DAI', 'ETH'], 300)],
  [1, (s, sec) => spend(s, sec, 'nft', s.rng.pick(['mint', 'purchase']), ['ETH'], 200)],
  [1, nftSale],
  [1, (s, sec) => spend(s, sec, 'other', 'adjustment', ['USDC', 'ETH'], 5)],
];

const TOTAL = ACTIONS.reduce((sum, [w]) => sum + w, 0);

function pickAction(s: State, sec: number): StoryTx {
  for (let attempt = 0; attempt < 8; attempt += 1) {
    let roll = s.rng.next() * TOTAL;
    for (const [weight, action] of ACTIONS) {
      roll -= weight;
      if (roll >= 0) continue;
      const made = action(s, sec);
      if (made !== null) return made;
      break;
    }
  }
  return deposit(s, sec) as StoryTx;
}

/** The first non-deleted index at or after a share of the history that nothing else has taken. */
function plantAt(input: StoryInput, at: number, taken: Set<number>): number {
  let i = Math.min(input.count - 1, Math.floor(input.count * at));
  while (i < input.count - 1 && (input.isDeleted(i) || taken.has(i))) i += 1;
  taken.add(i);
  return i;
}

/** The planted cases, each as a function run at its index. */
function planted(input: StoryInput, taken: Set<number>): Map<number, (s: State, sec: number) => StoryTx> {
  const out = new Map<number, (s: State, sec: number) => StoryTx>();
  const pick = (types: string[]) => (s: State) => accountsOf(s, types)[0] ?? 0;
  const btc = sym(input, 'BTC');
  out.set(plantAt(input, PLANTED.preHistory, taken), (s, sec) => {
    const account = pick(['wallet'])(s);
    // Held before the history starts: the service never saw them arrive.
    const units = held(s, account, btc) + PRE_HISTORY_BTC;
    credit(s, account, btc, PRE_HISTORY_BTC);
    const given = leg(s, btc, -1, units, sec);
    const usdc = sym(input, 'USDC');
    const received = unitsFor(input, usdc, Math.floor((given.valueCents * 997) / 1000), sec);
    return tx(s, account, {
      category: 'trade',
      subType: 'sell',
      legs: [given, leg(s, usdc, 1, received, sec)],
    });
  });
  out.set(plantAt(input, PLANTED.outsideTransfer, taken), (s, sec) =>
    tx(s, pick(['wallet'])(s), {
      category: 'transfer',
      subType: 'deposit',
      legs: [leg(s, btc, 1, OUTSIDE_BTC, sec)],
    }),
  );
  const spam = sym(input, 'ETHG-CLAIM');
  for (const [k, at] of PLANTED.spam.entries()) {
    out.set(plantAt(input, at, taken), (s, sec) => {
      const units = BigInt(1_000 * (k + 1)) * 10n ** 18n;
      const received: StoryLeg = { ...leg(s, spam, 1, units, sec), valueCents: 0, noValue: true };
      return {
        ...tx(s, pick(['wallet'])(s), {
          category: 'income',
          subType: 'airdrop',
          legs: [received],
          gas: false,
        }),
        noValue: true,
      };
    });
  }
  out.set(plantAt(input, PLANTED.stableNoValue, taken), (s, sec) => {
    const usdc = sym(input, 'USDC');
    const received: StoryLeg = { ...leg(s, usdc, 1, 1_250_000_000n, sec), noValue: true };
    const made = tx(s, pick(['defi', 'wallet'])(s), {
      category: 'income',
      subType: 'interest',
      protocol: 'Aave V3',
      legs: [received],
      gas: false,
    });
    return { ...made, noValue: true };
  });
  const late = plantAt(input, PLANTED.lateSide, taken);
  // The in side 3 days later, past the 24-hour pairing tolerance.
  const gap = Math.ceil((3 * DAY) / Math.max(1, input.slotSec)) + 1;
  let inSide = Math.min(input.count - 1, late + gap);
  while (inSide < input.count - 1 && (input.isDeleted(inSide) || taken.has(inSide))) inSide += 1;
  taken.add(inSide);
  out.set(late, (s, sec) => {
    const eth = sym(input, 'ETH');
    const accounts = input.accountTypes.map((_, a) => a);
    // From the account holding the most ETH, to another one.
    const from = accounts.reduce((best, a) => (held(s, a, eth) > held(s, best, eth) ? a : best), 0);
    const to =
      accounts.find((a) => a !== from && input.accountTypes[a] !== 'exchange') ??
      (from + 1) % accounts.length;
    const units = share(s, held(s, from, eth), 400, 600);
    s.pending.set(inSide, {
      category: 'transfer',
      subType: 'deposit',
      protocol: null,
      ledger: ledgerOf(s, to),
      legs: [leg(s, eth, 1, units, sec)],
      feeUnits: 0n,
      feeCents: 0,
      dateOf: inSide,
      hashOf: s.i,
    });
    return tx(s, from, {
      category: 'transfer',
      subType: 'withdrawal',
      legs: [leg(s, eth, -1, units, sec)],
      gas: false,
    });
  });
  return out;
}

/**
 * Writes the story of a portfolio: one {@link StoryTx} per index, `null` for deleted indices
 * (their random content stays).
 */
export function writeStory(input: StoryInput): (StoryTx | null)[] {
  const reserved = new Set<number>();
  const plants = planted(input, reserved);
  const s: State = {
    rng: new Rng(hash32(input.seed, 0x5707)),
    input,
    balances: new Map(),
    positions: new Map(),
    pending: new Map(),
    reserved,
    i: 0,
  };
  const out: (StoryTx | null)[] = [];
  for (let i = 0; i < input.count; i += 1) {
    s.i = i;
    const waiting = s.pending.get(i);
    if (input.isDeleted(i)) out.push(null);
    else if (waiting !== undefined) {
      // A late in side is credited when it arrives (an early one was credited with its out side).
      if (waiting.dateOf === i)
        for (const l of waiting.legs) credit(s, input.ledgerAccounts[waiting.ledger] ?? 0, l.token, l.units);
      out.push(waiting);
    } else {
      const sec = input.slotDateSec(i);
      out.push((plants.get(i) ?? pickAction)(s, sec));
    }
  }
  return out;
}
