/**
 * Reading and checking an adjustments document on its own (without the data): the schema, then
 * the contradictions between its adjustments. What only the data can tell (a transaction that
 * does not exist, a basis for something that is no transfer in) is checked while applying.
 */
import { createHash } from 'node:crypto';
import { ContradictoryAdjustmentsError, InvalidAdjustmentsError } from './errors.ts';
import { type Adjustment, type AdjustmentsDocument, adjustmentsDocumentSchema } from './schema.ts';

/** A document with the exact bytes it was read from (or written as) and their SHA-256. */
export interface LoadedAdjustments {
  document: AdjustmentsDocument;
  /** The exact bytes; the manifest's `sha256` is theirs. */
  bytes: Uint8Array;
  /** Hex SHA-256 of `bytes`. */
  sha256: string;
}

/** Hex SHA-256 of `bytes`. */
export function sha256Of(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The bytes a document is stored as: JSON, two spaces, one final line break. */
export function serializeAdjustments(document: AdjustmentsDocument): Uint8Array {
  return new TextEncoder().encode(`${JSON.stringify(document, null, 2)}\n`);
}

/**
 * Validates a document (the schema, then {@link checkContradictions}) and returns it typed.
 * Throws `InvalidAdjustmentsError` naming the first field at fault, or
 * `ContradictoryAdjustmentsError` naming the adjustments.
 */
export function validateAdjustments(input: unknown): AdjustmentsDocument {
  const parsed = adjustmentsDocumentSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = (issue?.path ?? []).map((part) =>
      typeof part === 'number' ? `[${part}]` : `.${String(part)}`,
    );
    throw new InvalidAdjustmentsError(
      field.join('').replace(/^\./, '') || '(document)',
      issue?.message ?? 'invalid',
      {
        cause: parsed.error,
      },
    );
  }
  checkContradictions(parsed.data.adjustments);
  checkWithdrawals(parsed.data);
  return parsed.data;
}

/** Parses and validates the exact bytes of an adjustments file (see {@link validateAdjustments}). */
export function parseAdjustments(bytes: Uint8Array): LoadedAdjustments {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch (error) {
    throw new InvalidAdjustmentsError('(document)', `not JSON text (${(error as Error).message})`, {
      cause: error,
    });
  }
  return { document: validateAdjustments(json), bytes, sha256: sha256Of(bytes) };
}

/**
 * Refuses adjustments that contradict each other: a repeated id; a transaction in two transfer
 * pairs (or paired with itself); two bases for one transfer in, or a basis for a side of a pair;
 * two values for one movement; two categories for one transaction, or a paired transaction
 * reclassified as anything but a transfer; a spam token that another adjustment gives a value,
 * a basis or lots; two sets of missing lots for one disposal.
 */
export function checkContradictions(adjustments: readonly Adjustment[]): void {
  /** Who claimed each key first: `kind key` → adjustment id. */
  const claimed = new Map<string, string>();
  const claim = (key: string, id: string, reason: string) => {
    const earlier = claimed.get(key);
    if (earlier !== undefined)
      throw new ContradictoryAdjustmentsError(earlier === id ? [id] : [earlier, id], reason);
    claimed.set(key, id);
  };
  const spam = new Map<string, string>();
  for (const a of adjustments) {
    claim(`id ${a.id}`, a.id, `the id ${JSON.stringify(a.id)} is used twice`);
    if (a.kind === 'spam') spam.set(a.token, a.id);
  }
  const notSpam = (token: string, id: string) => {
    const marked = spam.get(token);
    if (marked !== undefined)
      throw new ContradictoryAdjustmentsError(
        [marked, id],
        `${token} is marked as spam, yet given a value, a basis or lots`,
      );
  };
  for (const a of adjustments) {
    switch (a.kind) {
      case 'transfer-pair':
        if (a.outTxId === a.inTxId)
          throw new ContradictoryAdjustmentsError([a.id], 'a transaction cannot be paired with itself');
        claim(`pair ${a.outTxId}`, a.id, `transaction ${a.outTxId} is in two transfer pairs`);
        claim(`pair ${a.inTxId}`, a.id, `transaction ${a.inTxId} is in two transfer pairs`);
        break;
      case 'cost-basis':
        notSpam(a.token, a.id);
        claim(`basis ${a.txId} ${a.token}`, a.id, `two cost bases for ${a.token} of transaction ${a.txId}`);
        break;
      case 'missing-lots':
        for (const lot of a.lots) notSpam(lot.token, a.id);
        claim(`lots ${a.txId}`, a.id, `two sets of missing lots for transaction ${a.txId}`);
        break;
      case 'value':
        if (a.token !== undefined) notSpam(a.token, a.id);
        claim(`value ${a.txId} ${a.token ?? '*'}`, a.id, `two values for transaction ${a.txId}`);
        break;
      case 'category':
        claim(`category ${a.txId}`, a.id, `two categories for transaction ${a.txId}`);
        break;
      case 'spam':
        claim(`spam ${a.token}`, a.id, `${a.token} is marked as spam twice`);
        break;
      case 'opening-lots':
        for (const lot of a.lots) notSpam(lot.token, a.id);
        break;
    }
  }
  for (const a of adjustments) {
    // A pair's sides are transfers: a basis (from outside) or another category contradicts it.
    const txIds =
      a.kind === 'cost-basis' || (a.kind === 'category' && a.category !== 'transfer') ? [a.txId] : [];
    for (const txId of txIds) {
      const pair = claimed.get(`pair ${txId}`);
      if (pair !== undefined)
        throw new ContradictoryAdjustmentsError(
          [pair, a.id],
          a.kind === 'cost-basis'
            ? `transaction ${txId} is a side of a transfer between own accounts, so its basis is carried, not given`
            : `transaction ${txId} is a side of a transfer between own accounts, so it cannot be ${a.kind === 'category' ? a.category : ''}`,
        );
    }
    // A value for an in side with a basis given says two things about its cost.
    if (a.kind === 'value') {
      const basis = [...claimed].find(([key]) => key.startsWith(`basis ${a.txId} `));
      if (basis !== undefined && (a.token === undefined || basis[0] === `basis ${a.txId} ${a.token}`))
        throw new ContradictoryAdjustmentsError(
          [basis[1], a.id],
          `transaction ${a.txId} gets both a cost basis and a value`,
        );
    }
  }
}

/**
 * Refuses a withdrawal record whose id is withdrawn twice or is still an adjustment: an id names
 * one adjustment for good, so the history can say what each id was and when it went.
 */
export function checkWithdrawals(document: AdjustmentsDocument): void {
  const current = new Set(document.adjustments.map((a) => a.id));
  const seen = new Set<string>();
  (document.withdrawn ?? []).forEach((w, index) => {
    const id = w.adjustment.id;
    if (seen.has(id) || current.has(id))
      throw new InvalidAdjustmentsError(
        `withdrawn[${index}].adjustment.id`,
        seen.has(id)
          ? `${id} is withdrawn twice`
          : `${id} is withdrawn and still an adjustment: an id names one adjustment for good`,
      );
    seen.add(id);
  });
}

/** What a manifest records of the adjustments a run used. */
export interface AdjustmentsReference {
  profile: string;
  version: number;
  /** Hex SHA-256 of the exact bytes of that version. */
  sha256: string;
}

/** The manifest's record of `loaded`. */
export function adjustmentsReference(loaded: LoadedAdjustments): AdjustmentsReference {
  return { profile: loaded.document.profile, version: loaded.document.version, sha256: loaded.sha256 };
}
