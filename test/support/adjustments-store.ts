/**
 * An in-memory adjustments store for tests: lib/adjustments' {@link AdjustmentsStore} (the same
 * validation and bytes as the file and S3 stores), every version kept, a put only on the version
 * the writer read.
 */
import { AdjustmentsNotFoundError, StaleAdjustmentsError } from '../../lib/adjustments/errors.ts';
import type { AdjustmentsDocument } from '../../lib/adjustments/schema.ts';
import { type AdjustmentsStore, nextVersion } from '../../lib/adjustments/store.ts';
import type { LoadedAdjustments } from '../../lib/adjustments/validate.ts';

/** The store and what a test looks at. */
export interface MemoryAdjustmentsStore extends AdjustmentsStore {
  /** Every stored version of a profile, oldest first. */
  versions(profile: string): readonly AdjustmentsDocument[];
}

/** Creates an empty in-memory store. */
export function createMemoryAdjustmentsStore(): MemoryAdjustmentsStore {
  const byProfile = new Map<string, LoadedAdjustments[]>();
  const stored = (profile: string) => byProfile.get(profile) ?? [];
  return {
    versions: (profile) => stored(profile).map((v) => structuredClone(v.document)),
    latest: async (profile) => structuredClone(stored(profile).at(-1) ?? null),
    get: async (profile, version) => {
      const found = stored(profile)[version - 1];
      if (found === undefined) throw new AdjustmentsNotFoundError(profile, version);
      return structuredClone(found);
    },
    put: async (profile, document, expectedVersion) => {
      const next = nextVersion(profile, document, expectedVersion);
      const list = stored(profile);
      if (list.length !== expectedVersion)
        throw new StaleAdjustmentsError(profile, expectedVersion, list.length);
      byProfile.set(profile, [...list, next]);
      return structuredClone(next);
    },
  };
}
