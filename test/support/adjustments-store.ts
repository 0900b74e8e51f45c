/**
 * An in-memory {@link AdjustmentsStore} for tests, until the deployment's store (adjust's branch)
 * is merged: every version kept, a put only on the version the writer read.
 */
import type { AdjustmentsDocument } from '../../lib/adjustments/schema.ts';
import type { AdjustmentsStore } from '../../lib/http-api/adjustments-store.ts';

/** The store and what a test looks at. */
export interface MemoryAdjustmentsStore extends AdjustmentsStore {
  /** Every stored version of a profile, oldest first. */
  versions(profile: string): readonly AdjustmentsDocument[];
}

/** Creates an empty in-memory store. */
export function createMemoryAdjustmentsStore(): MemoryAdjustmentsStore {
  const byProfile = new Map<string, AdjustmentsDocument[]>();
  const versions = (profile: string) => byProfile.get(profile) ?? [];
  return {
    versions,
    latest: async (profile) => structuredClone(versions(profile).at(-1) ?? null),
    get: async (profile, version) => structuredClone(versions(profile)[version - 1] ?? null),
    put: async (profile, doc, expectedVersion) => {
      const list = versions(profile);
      if (list.length !== expectedVersion || doc.version !== expectedVersion + 1) return false;
      byProfile.set(profile, [...list, structuredClone(doc)]);
      return true;
    },
  };
}
