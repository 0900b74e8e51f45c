/**
 * The adjustments document: the preparer's corrections to what the service sent, per profile,
 * versioned. Each adjustment says who made it, when and why. The snapshot never changes; the
 * corrections are applied to canonical transactions before the gains engine.
 */
import { z } from 'zod';

const decimal = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a plain decimal such as 12.50');
const positive = z.string().regex(/^\d+(\.\d+)?$/, 'must be a plain non-negative decimal such as 0.5');
const instant = z.iso.datetime({ offset: true });
const id = z.string().min(1).max(200);

const base = {
  /** Unique inside the document. */
  id,
  /** Who made it (the portal user, the API caller, or the CLI user's name). */
  by: z.string().min(1).max(200),
  /** When it was made (ISO instant). */
  at: instant,
  /** Why, in the preparer's words. */
  why: z.string().min(1).max(2000),
};

/** One lot of an opening balance or of a missing basis. */
export const lotSchema = z.strictObject({
  token: z.string().min(1),
  /** The portfolio account holding it; absent when pooled universally. */
  account: z.string().min(1).optional(),
  quantity: positive,
  /** Total cost basis of the lot in the gains currency. */
  cost: positive,
  acquiredAt: instant,
});

/** One lot of {@link lotSchema}. */
export type Lot = z.infer<typeof lotSchema>;

/** One correction. */
export const adjustmentSchema = z.discriminatedUnion('kind', [
  /** Two transactions are one move between the client's own accounts. */
  z.strictObject({ ...base, kind: z.literal('transfer-pair'), outTxId: id, inTxId: id }),
  /** The cost basis (and acquisition instant) of a transfer in from outside. */
  z.strictObject({
    ...base,
    kind: z.literal('cost-basis'),
    txId: id,
    token: z.string().min(1),
    cost: positive,
    acquiredAt: instant.optional(),
  }),
  /** Lots for the part of a disposal no lot covered (the zero-basis rest). */
  z.strictObject({ ...base, kind: z.literal('missing-lots'), txId: id, lots: z.array(lotSchema).min(1) }),
  /** A missing fiat value of a transaction (or of one token's movement in it). */
  z.strictObject({
    ...base,
    kind: z.literal('value'),
    txId: id,
    token: z.string().min(1).optional(),
    value: decimal,
  }),
  /** A token is spam: its movements are ignored everywhere the figures come from. */
  z.strictObject({ ...base, kind: z.literal('spam'), token: z.string().min(1) }),
  /** A transaction's category is another. */
  z.strictObject({
    ...base,
    kind: z.literal('category'),
    txId: id,
    category: z.enum(['income', 'staking', 'lending', 'airdrop', 'gift', 'lost', 'fee', 'trade', 'transfer']),
  }),
  /** Holdings from before the service's history starts, with their lots. */
  z.strictObject({ ...base, kind: z.literal('opening-lots'), lots: z.array(lotSchema).min(1) }),
]);

/** One of the corrections of {@link adjustmentSchema}. */
export type Adjustment = z.infer<typeof adjustmentSchema>;

/** The kinds of adjustment. */
export type AdjustmentKind = Adjustment['kind'];

/**
 * An adjustment withdrawn: the adjustment as it was, who withdrew it, when and why. It no longer
 * applies; the record stays in every later version (the audit trail keeps it, nothing is erased).
 */
export const withdrawalSchema = z.strictObject({
  adjustment: adjustmentSchema,
  /** Who withdrew it (the portal user, the API caller, or the CLI user's name). */
  by: base.by,
  /** When (ISO instant). */
  at: instant,
  /** Why, in the preparer's words. */
  why: base.why,
});

/** One withdrawal of {@link withdrawalSchema}. */
export type Withdrawal = z.infer<typeof withdrawalSchema>;

/** The document, as stored: one version of a profile's adjustments. */
export const adjustmentsDocumentSchema = z.strictObject({
  schema: z.literal('pbs-export/adjustments@1'),
  profile: z.string().min(1),
  /** 1 for the first version, +1 for each change; every version is kept. */
  version: z.number().int().positive(),
  adjustments: z.array(adjustmentSchema),
  /**
   * The adjustments withdrawn so far, oldest first (absent until the first withdrawal, so the
   * bytes of a document without one are what they were). They do not apply.
   */
  withdrawn: z.array(withdrawalSchema).optional(),
});

/** A version of a profile's adjustments document. */
export type AdjustmentsDocument = z.infer<typeof adjustmentsDocumentSchema>;
