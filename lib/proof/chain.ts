/**
 * Months that chain (README: Proof): each set's manifest names the set of the same profile it
 * continues, the latest finished set whose period ends where its own begins, by that manifest's
 * SHA-256; `null` when there is none (the chain begins there).
 */
import { createHash } from 'node:crypto';
import type { SetStore } from './store.ts';

/** A set as its successor's manifest names it (`previous`). */
export interface PreviousSet {
  /** The set's folder relative to the sink's root, e.g. `reports/demo/2025-01/<runId>`. */
  prefix: string;
  /** SHA-256 (hex) of the set's `manifest.json`, exactly as stored. */
  manifestSha256: string;
  period: { label: string; start: string; end: string };
  completedAt: string;
}

/** What a manifest holds that the chain reads. */
export interface ChainedManifest {
  runId: string;
  completedAt: string;
  request?: { profile?: string };
  period: { label: string; start: string; end: string };
  previous?: PreviousSet | null;
}

/** The name every set's manifest has. */
const MANIFEST = 'manifest.json';

/**
 * The set of `profile` that a set of a period starting at `start` continues: among the finished
 * sets under `reports/<profile>/`, those whose period ends at `start` (the same instant), the one
 * completed last. Null when there is none.
 */
export async function findPreviousSet(
  store: SetStore,
  profile: string,
  start: string,
): Promise<PreviousSet | null> {
  const startsAt = Date.parse(start);
  let found: PreviousSet | null = null;
  for (const key of await store.list(`reports/${profile}/`)) {
    if (!key.endsWith(`/${MANIFEST}`)) continue;
    const bytes = await store.read(key);
    if (bytes === null) continue;
    const manifest = parseManifest(bytes);
    if (manifest === null || Date.parse(manifest.period.end) !== startsAt) continue;
    if (found !== null && found.completedAt >= manifest.completedAt) continue;
    found = {
      prefix: key.slice(0, -MANIFEST.length - 1),
      manifestSha256: sha256(bytes),
      period: { label: manifest.period.label, start: manifest.period.start, end: manifest.period.end },
      completedAt: manifest.completedAt,
    };
  }
  return found;
}

/** A manifest's fields the chain reads, or null when the bytes are not a manifest. */
export function parseManifest(bytes: Buffer): ChainedManifest | null {
  try {
    const value = JSON.parse(bytes.toString('utf8')) as Partial<ChainedManifest>;
    if (typeof value.completedAt !== 'string' || typeof value.period?.end !== 'string') return null;
    return value as ChainedManifest;
  } catch {
    return null;
  }
}

/** Lowercase hex SHA-256 of `bytes`. */
export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
