/**
 * Builders of engine events for the tests: short calls that read like a ledger.
 */
import type { CanonicalTransaction } from '../../lib/domain/index.ts';
import { createGainsEngine } from '../../lib/gains/engine.ts';
import type {
  AcquireEvent,
  DisposeEvent,
  GainsEvent,
  GainsOptions,
  GainsResult,
  MoveEvent,
  WithdrawEvent,
} from '../../lib/gains/types.ts';

/** Epoch milliseconds of a date or instant (UTC when no offset is given). */
export const at = (iso: string) => Date.parse(iso.length === 10 ? `${iso}T12:00:00Z` : iso);

/** An acquisition of `quantity` at fiat `value` (plus `fee`) in account `account`. */
export function buy(
  txId: string,
  date: string,
  token: string,
  quantity: string,
  value: string | null,
  more: Partial<AcquireEvent> = {},
): AcquireEvent {
  return {
    kind: 'acquire',
    txId,
    leg: 0,
    time: at(date),
    token,
    quantity,
    value,
    fee: '0',
    income: null,
    account: 'A',
    ...more,
  };
}

/** A disposal of `quantity` for fiat `value` (less `fee`) from account `account`. */
export function sell(
  txId: string,
  date: string,
  token: string,
  quantity: string,
  value: string | null,
  more: Partial<DisposeEvent> = {},
): DisposeEvent {
  return {
    kind: 'dispose',
    txId,
    leg: 0,
    time: at(date),
    token,
    quantity,
    value,
    fee: '0',
    account: 'A',
    ...more,
  };
}

/** A move of lots from one account to another. */
export function move(
  txId: string,
  date: string,
  token: string,
  quantity: string,
  from: string,
  to: string,
): MoveEvent {
  return { kind: 'move', txId, leg: 0, time: at(date), token, quantity, from, to };
}

/** Lots leaving the portfolio without a gain. */
export function withdraw(
  txId: string,
  date: string,
  token: string,
  quantity: string,
  account = 'A',
): WithdrawEvent {
  return { kind: 'withdraw', txId, leg: 0, time: at(date), token, quantity, account };
}

/** Runs events through a fresh engine. */
export function run(events: readonly GainsEvent[], options: GainsOptions = {}): GainsResult {
  const engine = createGainsEngine(options);
  for (const event of events) engine.process(event);
  engine.finish();
  return engine.result();
}

/** The disposal lines reduced to the fields a hand-worked case checks. */
export function lines(result: GainsResult) {
  return result.disposals.map((d) => ({
    from: d.acquiredTxId,
    quantity: d.quantity,
    proceeds: d.proceeds,
    cost: d.cost,
    gain: d.gain,
  }));
}

/** A canonical transaction with sensible defaults (a USD-valued trade in account A). */
export function tx(overrides: Partial<CanonicalTransaction> & { id: string }): CanonicalTransaction {
  return {
    date: '2025-03-14T09:00:00.000Z',
    type: null,
    subType: null,
    category: 'trade',
    protocol: null,
    hash: null,
    accountId: 'A',
    ledgerId: null,
    movements: [],
    valueAmount: null,
    valueCurrency: 'USD',
    feeAmount: null,
    feeCurrency: 'USD',
    feeSymbol: null,
    feeQuantity: null,
    extras: {},
    ...overrides,
  };
}

/** A movement of `amount` (signed) worth `value` (signed like it). */
export const leg = (symbol: string, amount: string, value: string | null) => ({
  symbol,
  amount,
  value,
  extras: {},
});
