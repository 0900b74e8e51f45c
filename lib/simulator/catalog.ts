/** What the generated data is made of: its tokens, protocols, categories and memos (`data.ts`). */
import { STORY_TOKENS } from './story.ts';

/** A token of the generated data. */
export interface Token {
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

/** Every token: the generated ones (same indices), then the demo story's own (fiat dollars, a spam token). */
export const ALL_TOKENS: readonly Token[] = [...TOKENS, ...STORY_TOKENS];

/** DeFi protocols of the generated data (non-DeFi transactions carry `null`). */
export const PROTOCOLS = ['Aave V3', 'Compound V3', 'Curve', 'Lido', 'Uniswap V3'] as const;

/** The side of a movement: out (-1) or in (1). */
export type Leg = -1 | 1;

/** One kind of transaction within a category. */
export interface Variant {
  subType: string;
  legs: readonly Leg[];
  protocols: readonly (string | null)[];
  /** Token symbols per leg; a random distinct token when absent. */
  tokens?: readonly string[];
}

/** A `cf` category: its weight among the generated transactions and its variants. */
export interface CategorySpec {
  category: string;
  weight: number;
  variants: readonly Variant[];
}

/** The stable coins bought and sold with. */
export const STABLES = ['USDC', 'USDT', 'DAI'];

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

/** Sum of the categories' weights (a roll below it picks one). */
export const TOTAL_WEIGHT = CATEGORIES.reduce((sum, c) => sum + c.weight, 0);

/** Memos of transfers. */
export const MEMOS = [
  'Payroll, March',
  'He said "thanks"',
  '=1+1 looks like a formula',
  'Rent\nsecond line',
  'Ünïcödé ✓ memo',
  'Invoice 2025-0042',
];
