/**
 * The generic rule set (the default): no law fixes anything, every lot method and pooling is open,
 * and the figures are in whatever currency the data has. It brings the lot methods that order the
 * lot pools (lots.ts) and the two plain poolings.
 */
import type { LotMethodRules, PoolingRules, TaxRuleSet } from '../types.ts';

/** A method that orders the lot pools (lots.ts `ORDERS`): nothing past the period, no own books. */
const lotOrder = (name: LotMethodRules['name'], words: string): LotMethodRules => ({
  name,
  words,
  readsPastPeriod: 0,
  wholeDays: false,
  namesRule: false,
  poolHistory: false,
});

const METHODS: readonly LotMethodRules[] = [
  lotOrder('fifo', 'first in, first out (FIFO): a disposal uses the oldest lots first'),
  lotOrder('lifo', 'last in, first out (LIFO): a disposal uses the newest lots first'),
  lotOrder('hifo', 'highest in, first out (HIFO): a disposal uses the lots that cost most first'),
  lotOrder('average', 'average cost: every lot of a token carries the pool’s average cost'),
];

const POOLINGS: readonly PoolingRules[] = [
  { name: 'universal', words: 'one for the whole portfolio (universal)', perAccount: false },
  { name: 'account', words: 'one per account (wallet by wallet)', perAccount: true },
];

/** `generic`: every choice open. */
export const GENERIC: TaxRuleSet = {
  id: 'generic',
  words: 'generic (every method and pooling choice open)',
  defaults: { method: 'fifo', pooling: 'universal', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {},
  timeZone: null,
  rounding: null,
  exchangeValue: 'own',
  disposalFee: 'proceeds',
  incomeFee: 'basis',
  currency: null,
  methods: METHODS,
  poolings: POOLINGS,
};
