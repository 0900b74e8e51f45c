/**
 * What the HTTP API needs of a profile's adjustments documents (lib/adjustments/schema.ts):
 * every version kept, never rewritten in place, and a write that only succeeds on the version the
 * writer read (optimistic concurrency). The deployment's implementation (S3 with versions; a file
 * per version locally) is built where the API's other dependencies are.
 */
import type { AdjustmentsDocument } from '../adjustments/schema.ts';

/** A profile's adjustments documents, one per version. */
export interface AdjustmentsStore {
  /** The newest version of the profile's document; `null` before the first adjustment. */
  latest(profile: string): Promise<AdjustmentsDocument | null>;
  /** One version; `null` when there is no such version. */
  get(profile: string, version: number): Promise<AdjustmentsDocument | null>;
  /**
   * Stores `doc` (whose `version` is `expectedVersion + 1`) if the newest version is still
   * `expectedVersion` (0: there is none yet). `false`: another writer stored a version first, and
   * nothing was written.
   */
  put(profile: string, doc: AdjustmentsDocument, expectedVersion: number): Promise<boolean>;
}
