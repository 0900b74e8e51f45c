const SEGMENT_CACHE_LIMIT = 1_000;
const segmentCache = new Map<string, readonly string[]>();

/** The keys of a dotted path, cached: the same few configured paths are read millions of times. */
function segmentsOf(path: string): readonly string[] {
  let segments = segmentCache.get(path);
  if (segments === undefined) {
    segments = path.split('.');
    if (segmentCache.size >= SEGMENT_CACHE_LIMIT) segmentCache.clear();
    segmentCache.set(path, segments);
  }
  return segments;
}

/**
 * Reads a value at a dotted field path (`a.b.c`). The empty path returns the value itself.
 * Returns `undefined` when any step is missing or not an object.
 */
export function getPath(value: unknown, path: string): unknown {
  if (path === '') return value;
  let current: unknown = value;
  for (const key of segmentsOf(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** Writes `value` at a dotted field path, creating intermediate objects. Mutates `target`. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current: Record<string, unknown> = target;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (next === null || typeof next !== 'object') {
      const created: Record<string, unknown> = {};
      current[key] = created;
      current = created;
    } else {
      current = next as Record<string, unknown>;
    }
  }
  current[keys[keys.length - 1] as string] = value;
}
