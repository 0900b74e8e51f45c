/**
 * Withdrawing an adjustment: the next version of the document without it, and with a record of
 * the withdrawal (the adjustment as it was, who, when, why) kept in that version and every later
 * one. Nothing is erased: the version that held the adjustment stays as it was, and the record
 * says where it went.
 */
import { UnknownAdjustmentError } from './errors.ts';
import type { AdjustmentsDocument, Withdrawal } from './schema.ts';

/** Who withdraws an adjustment, when and why. */
export interface WithdrawalBy {
  by: string;
  /** ISO instant. */
  at: string;
  why: string;
}

/**
 * The version after `latest` (of `profile`; `null`: none yet) without adjustment `id`, its
 * withdrawal recorded. Throws `UnknownAdjustmentError` when `latest` does not hold `id` (saying
 * who withdrew it when it went before). The result is validated when stored (`store.put`).
 */
export function withdrawAdjustment(
  profile: string,
  latest: AdjustmentsDocument | null,
  id: string,
  withdrawal: WithdrawalBy,
): AdjustmentsDocument {
  const adjustment = latest?.adjustments.find((a) => a.id === id);
  if (latest === null || adjustment === undefined) {
    const earlier = latest?.withdrawn?.find((w) => w.adjustment.id === id);
    throw new UnknownAdjustmentError(
      profile,
      id,
      earlier === undefined ? null : { by: earlier.by, at: earlier.at },
    );
  }
  const record: Withdrawal = { adjustment, by: withdrawal.by, at: withdrawal.at, why: withdrawal.why };
  return {
    schema: 'pbs-export/adjustments@1',
    profile,
    version: latest.version + 1,
    adjustments: latest.adjustments.filter((a) => a.id !== id),
    withdrawn: [...(latest.withdrawn ?? []), record],
  };
}

/** The withdrawal of `id` that `document` records, if any. */
export function withdrawalOf(document: AdjustmentsDocument | null, id: string): Withdrawal | undefined {
  return document?.withdrawn?.find((w) => w.adjustment.id === id);
}
