/**
 * Which adjustment of a document resolves a gains warning: the link the warnings list (portal,
 * API) shows as "resolved by". A warning no adjustment resolves is open.
 */
import type { Adjustment } from './schema.ts';

/** The fields of a warning row the link is made on. */
export interface WarningFacts {
  kind: string;
  transactionId: string;
  token: string;
  account: string;
}

const BASIS_KINDS = new Set(['zero-basis', 'negative-balance']);

/** Whether `a` resolves the warning `w`. */
export function resolves(a: Adjustment, w: WarningFacts): boolean {
  switch (a.kind) {
    case 'transfer-pair':
      return (
        w.kind === 'unmatched-transfer' && (a.outTxId === w.transactionId || a.inTxId === w.transactionId)
      );
    case 'cost-basis':
      return (
        (w.kind === 'unmatched-transfer' || w.kind === 'missing-cost-basis') &&
        a.txId === w.transactionId &&
        a.token === w.token
      );
    case 'missing-lots':
      return BASIS_KINDS.has(w.kind) && a.txId === w.transactionId;
    case 'value':
      return w.kind === 'missing-value' && a.txId === w.transactionId && (a.token ?? w.token) === w.token;
    case 'spam':
      return a.token === w.token;
    case 'category':
      return a.txId === w.transactionId;
    case 'opening-lots':
      return (
        BASIS_KINDS.has(w.kind) &&
        a.lots.some(
          (lot) => lot.token === w.token && (lot.account === undefined || lot.account === w.account),
        )
      );
  }
}

/** The first adjustment of `adjustments` that resolves `w`, if any. */
export function resolvingAdjustment(
  adjustments: readonly Adjustment[],
  w: WarningFacts,
): Adjustment | undefined {
  return adjustments.find((a) => resolves(a, w));
}
