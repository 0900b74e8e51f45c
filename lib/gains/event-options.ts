/**
 * The event adapter's options (events.ts): which symbols are fiat, which categories are income,
 * transfers and fees, how transfers pair and what their fees and the protocol positions do, and the
 * value of each side of an exchange (a rule set's choice).
 */
import type { CanonicalTransaction } from '../domain/index.ts';
import type { SameTimeOrder } from './types.ts';

/** Symbols treated as fiat (never lots) besides each transaction's value and fee currencies. */
export const DEFAULT_FIAT_SYMBOLS: readonly string[] = [
  'USD',
  'EUR',
  'GBP',
  'CHF',
  'JPY',
  'CAD',
  'AUD',
  'NZD',
  'SEK',
  'NOK',
  'DKK',
  'SGD',
  'HKD',
];

/** Account used when a transaction has none. */
export const NO_ACCOUNT = '(none)';

/** Options of {@link toEvents}. Every field has a default. */
export interface AdapterOptions {
  /** Default {@link DEFAULT_FIAT_SYMBOLS}. */
  fiatSymbols?: readonly string[];
  /** In movements of these categories are income when the transaction has no out movement. Default `income`, `staking`. */
  incomeCategories?: readonly string[];
  /** Categories whose movements are transfers (paired, or external). Default `transfer`, `bridge`. */
  transferCategories?: readonly string[];
  /** Categories whose out movements are the fee itself (fee fields ignored). Default `fee`. */
  feeCategories?: readonly string[];
  /**
   * A transfer out with no counterpart in the portfolio: `non-taxable` (default) removes lots at
   * their basis without a gain; `taxable` disposes at the movement's fiat value. A transfer in
   * with no counterpart always opens a lot at its fiat value. Both are listed in warnings.
   */
  externalTransfers?: 'non-taxable' | 'taxable';
  /** Key pairing a transfer out with a transfer in of the same token in another account. Default: `hash`. */
  pairKey?: (tx: CanonicalTransaction) => string | null;
  /** Default `input`. */
  sameTimeOrder?: SameTimeOrder;
  /** Scale of fiat amounts split pro rata (a transfer's lost quantity). Default 18. */
  fiatScale?: number;
  /**
   * The basis of a transfer in from outside the portfolio: `market-value` (default) opens the lot
   * at the movement's fiat value; `zero` opens it at zero with a `missing-cost-basis` warning.
   */
  transferInBasis?: TransferInBasis;
  /**
   * A fiat fee (`feeAmount`) on a transfer between own accounts (both sides' fees) or on a move into
   * or out of a protocol position: `dropped` (default) or `basis`, added to the basis of the moved
   * lots.
   */
  transferFee?: TransferFee;
  /**
   * Lending supply/withdraw, liquidity add/remove, staking delegate/undelegate (see
   * {@link POSITION_MOVES}): `taxable` (default) disposes and acquires at value like any exchange;
   * `non-taxable` moves the lots into a position account and back, keeping their basis and dates.
   */
  protocolMoves?: ProtocolMoves;
  /**
   * Largest time between the two sides of a transfer between own accounts, in milliseconds: a
   * side waits this long for its counterpart before it is taken as external. Default 24 hours.
   */
  transferTolerance?: number;
  /**
   * The value of each side of an exchange of tokens for tokens: `own` (default) disposes and
   * acquires each movement at its own value (slippage shows as the difference); `counterpart`
   * takes the value of what is received as the disposals' consideration and the value of what is
   * given as the acquisitions' cost (the uk rule set: HMRC's CRYPTO22257), shared pro rata to the
   * movements' own values when a side has several.
   */
  exchangeValue?: ExchangeValue;
  /**
   * Transfers the preparer paired by hand (adjustments): out transaction id → in transaction id.
   * Their legs pair with each other only, whatever the time apart, the key or the accounts; each
   * side waits for the other (and the events after it with it), so memory holds the history
   * between the two sides.
   */
  transferPairs?: ReadonlyMap<string, string>;
  /**
   * The cost basis of a transfer in from outside, by in transaction id and token (adjustments):
   * the lot opens at `cost` (not its market value, nor zero), dated `acquiredAt` (epoch ms; absent:
   * the receipt), without an `unmatched-transfer` or `missing-cost-basis` warning. Such an in side
   * is never paired by key: the preparer said it came from outside.
   */
  transferInCosts?: ReadonlyMap<string, ReadonlyMap<string, TransferInCost>>;
}

/** See {@link AdapterOptions.transferInCosts}. */
export interface TransferInCost {
  /** Total cost basis of the movement, a positive exact decimal. */
  cost: string;
  /** Acquisition instant of the lot (epoch ms); absent: the instant of the transfer in. */
  acquiredAt?: number;
}

/** See {@link AdapterOptions.exchangeValue}. */
export type ExchangeValue = 'own' | 'counterpart';

/** See {@link AdapterOptions.transferInBasis}. */
export type TransferInBasis = 'market-value' | 'zero';
/** See {@link AdapterOptions.transferFee}. */
export type TransferFee = 'dropped' | 'basis';
/** See {@link AdapterOptions.protocolMoves}. */
export type ProtocolMoves = 'taxable' | 'non-taxable';

/**
 * The sub-types (per category) that enter or leave a protocol position: with
 * `protocolMoves: 'non-taxable'` the out movements of an `enter` move the lots into the position
 * and the in movements of an `exit` move them back; the other side (a receipt token such as an
 * aToken or LP token) stands for the position and is not a lot.
 */
export const POSITION_MOVES: Readonly<Record<string, { enter: readonly string[]; exit: readonly string[] }>> =
  {
    lending: { enter: ['supply'], exit: ['withdraw'] },
    liquidity: { enter: ['add-liquidity'], exit: ['remove-liquidity'] },
    staking: { enter: ['delegate'], exit: ['undelegate'] },
  };

/** The account holding the lots of a protocol position: `A [lending Aave V3]`. */
export function positionAccount(account: string, category: string, protocol: string | null): string {
  return `${account} [${category}${protocol === null || protocol === '' ? '' : ` ${protocol}`}]`;
}

/** Default {@link AdapterOptions.transferTolerance}: 24 hours. */
export const DEFAULT_TRANSFER_TOLERANCE = 24 * 3600 * 1000;
