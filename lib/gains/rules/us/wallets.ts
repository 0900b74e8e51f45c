/**
 * `wallet-from-2025` (Rev. Proc. 2024-28): one pool per token until 1 January 2025, then one per
 * wallet (account), the unused basis allocated to the wallets on that day (allocation.ts). Until
 * then each wallet's holding and its own records of its lots are kept beside the universal pools,
 * for the allocation to follow.
 */
import { DateTime } from 'luxon';
import { Big, compareText, text, ZERO } from '../../../domain/index.ts';
import {
  activityOf,
  activityOfKey,
  addFlow,
  carriedLot,
  type EngineState,
  type PoolingSwitch,
  pairKey,
  pairOf,
  pool,
  revive,
} from '../../engine-state.ts';
import { Pool } from '../../lots.ts';
import type { GainsEvent, WalletAllocation } from '../../types.ts';
import { allocateUnusedBasis } from './allocation.ts';

/** What the switch keeps until it is made. */
interface Wallets {
  /** The instant the pools become per account: local midnight of 1 January 2025. */
  readonly switchAt: number;
  /** Until the switch: each account's holding per token (`account \0 token`), to allocate the pool by. */
  readonly balances: Map<string, Big>;
  /**
   * Until the switch: each wallet's own records (`account \0 token`), the lots it holds as
   * account pooling would have them, which the allocation of 1 January 2025 follows.
   */
  readonly records: Map<string, Pool>;
  /**
   * The allocation rule at the switch: the option's, except for a state carried before the
   * switch without the wallets' records (older versions), which only the balances can allocate.
   */
  allocationRule: WalletAllocation;
}

/** The switch to wallet-by-wallet pools of engine `s` (in its zone's 1 January 2025). */
export function createWalletSwitch(s: EngineState): PoolingSwitch {
  const w: Wallets = {
    switchAt: DateTime.fromObject({ year: 2025, month: 1, day: 1 }, { zone: s.options.timeZone }).toMillis(),
    balances: new Map(),
    records: new Map(),
    allocationRule: s.options.walletAllocation,
  };
  // Whether the wallets' own records are kept: before the switch.
  const recording = () => !s.accountPools;
  return {
    before(time) {
      // Whether the pools switch to per account before an event at `time` (or at the end).
      if (!s.accountPools && time >= w.switchAt) switchToWallets(s, w);
    },
    opened(lot) {
      if (recording()) recordsOf(s, w, lot.account, lot.token).add({ ...lot, arrived: lot.seq });
    },
    after(event) {
      if (recording()) trackEvent(s, w, event);
    },
    carry: () => ({
      done: s.accountPools,
      balances: [...w.balances]
        .filter(([, quantity]) => !quantity.eq(0))
        .map(([key, quantity]) => {
          const [account, token] = pairOf(key) as [string, string];
          return { account, token, quantity: text(quantity) };
        })
        .sort((a, b) => compareText(a.token, b.token) || compareText(a.account, b.account)),
      records: [...w.records.values()]
        .filter((r) => r.quantity.gt(0))
        .map((r) => ({ account: r.account ?? '', token: r.token, lots: r.lots().map(carriedLot) }))
        .sort((a, b) => compareText(a.token, b.token) || compareText(a.account, b.account)),
    }),
    restore(state) {
      s.accountPools = state.done;
      for (const b of state.balances) w.balances.set(pairKey(b.account, b.token), new Big(b.quantity));
      if (state.records === undefined && !state.done) w.allocationRule = 'account-order';
      for (const r of state.records ?? []) {
        const target = recordsOf(s, w, r.account, r.token);
        for (const lot of r.lots) target.add(revive(lot));
      }
    },
  };
}

/** Until the switch to wallet-by-wallet pools, each account's holding per token. */
function track(w: Wallets, account: string, token: string, quantity: string, sign: 1 | -1): void {
  const key = pairKey(account, token);
  const next = (w.balances.get(key) ?? ZERO).plus(sign === 1 ? quantity : new Big(quantity).neg());
  w.balances.set(key, next);
}

function trackEvent(s: EngineState, w: Wallets, event: GainsEvent): void {
  switch (event.kind) {
    case 'acquire':
      track(w, event.account, event.token, event.quantity, 1);
      break;
    case 'dispose':
    case 'withdraw':
      track(w, event.account, event.token, event.quantity, -1);
      recordsOf(s, w, event.account, event.token).take(new Big(event.quantity));
      break;
    case 'move': {
      track(w, event.from, event.token, event.quantity, -1);
      track(w, event.to, event.token, event.quantity, 1);
      if (event.from === event.to) break;
      // The wallet's records, as account pooling moves lots: what the sender holds, in its order.
      const taken = recordsOf(s, w, event.from, event.token).take(new Big(event.quantity));
      const target = recordsOf(s, w, event.to, event.token);
      for (const piece of taken.pieces) {
        target.add({
          ...piece.lot,
          account: event.to,
          quantity: piece.quantity,
          cost: piece.cost,
          arrived: s.nextSeq++,
        });
      }
      break;
    }
  }
}

/** A wallet's own records of a token until the switch (see {@link Wallets.records}). */
function recordsOf(s: EngineState, w: Wallets, account: string, token: string): Pool {
  const key = pairKey(account, token);
  let found = w.records.get(key);
  if (found === undefined) {
    found = new Pool(token, account, s.options.method, s.options.fiatScale, s.options.rounding);
    w.records.set(key, found);
  }
  return found;
}

/**
 * From one pool per token to one per account and token (Rev. Proc. 2024-28's allocation of the
 * unused basis, by the run's `walletAllocation`: allocation.ts). Recorded as transfers
 * out of the universal line into the accounts, and as the allocation statement's lines.
 */
function switchToWallets(s: EngineState, w: Wallets): void {
  const reported = s.options.periodStart === null || w.switchAt >= s.options.periodStart;
  const universal = [...s.pools.values()];
  s.pools.clear();
  s.accountPools = true;
  const perToken = <T>(map: Map<string, T>, token: string) =>
    new Map(
      [...map]
        .filter(([key]) => pairOf(key)[1] === token)
        .map(([key, value]) => [pairOf(key)[0] as string, value] as const),
    );
  for (const source of universal) {
    const token = source.token;
    const { grants, uncovered } = allocateUnusedBasis(w.allocationRule, {
      universal: source,
      records: perToken(w.records, token),
      balances: perToken(w.balances, token),
      method: s.options.method,
      scale: s.options.fiatScale,
      rounding: s.options.rounding,
    });
    for (const g of grants) {
      pool(s, g.account, token).add({ ...g.lot, account: g.account, quantity: g.quantity, cost: g.cost });
      s.allocation.push({
        token,
        account: g.account,
        quantity: text(g.quantity),
        cost: text(g.cost),
        acquiredAt: g.lot.acquiredAt,
        acquiredTxId: g.lot.txId,
        source: g.source,
      });
      if (!reported) continue;
      addFlow(activityOf(s, g.account, token).transferredIn, g.quantity, g.cost);
      const before = activityOfKey(s, pairKey(null, token));
      addFlow(before.transferredOut, g.quantity, g.cost);
    }
    for (const u of uncovered) {
      s.allocation.push({
        token,
        account: u.account,
        quantity: text(u.quantity),
        cost: '0',
        acquiredAt: null,
        acquiredTxId: null,
        source: 'uncovered',
      });
    }
  }
  w.balances.clear();
  w.records.clear();
}
