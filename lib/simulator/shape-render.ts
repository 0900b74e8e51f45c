import { DEFAULT_SHAPE, getPath, setPath, type TransactionFieldMap } from '../pbs/index.ts';

const MOVEMENT_KEYS = ['movementSymbol', 'movementAmount', 'movementValue'] as const;

/** Removes the value at a dotted path and any parent objects that become empty. */
function deletePath(target: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  const parents: Record<string, unknown>[] = [];
  let current: unknown = target;
  for (const key of keys.slice(0, -1)) {
    if (current === null || typeof current !== 'object') return;
    parents.push(current as Record<string, unknown>);
    current = (current as Record<string, unknown>)[key];
  }
  if (current === null || typeof current !== 'object') return;
  delete (current as Record<string, unknown>)[keys[keys.length - 1] as string];
  for (let depth = parents.length - 1; depth >= 0; depth -= 1) {
    const parent = parents[depth] as Record<string, unknown>;
    const key = keys[depth] as string;
    const child = parent[key];
    if (child !== null && typeof child === 'object' && Object.keys(child).length === 0) delete parent[key];
    else break;
  }
}

/** Moves each `[from, to]` path pair of `target` (all values read first, then written). */
function relocate(target: Record<string, unknown>, moves: [string, string][]): void {
  const values: [string, unknown][] = [];
  for (const [from, to] of moves) {
    const value = getPath(target, from);
    if (value === undefined) continue;
    values.push([to, value]);
    deletePath(target, from);
  }
  for (const [to, value] of values) setPath(target, to, value);
}

/**
 * Lays out a canonical (GAPS.md default) transaction or timeline item in the shape's field
 * mapping: each field whose mapped path differs from the default is moved there. Fields the
 * mapping does not name stay where they are. Mutates and returns `item`.
 */
export function renderTransaction(
  item: Record<string, unknown>,
  fields: TransactionFieldMap,
): Record<string, unknown> {
  const defaults = DEFAULT_SHAPE.fields;
  const movementMoves: [string, string][] = MOVEMENT_KEYS.filter((k) => fields[k] !== defaults[k]).map(
    (k) => [defaults[k], fields[k]],
  );
  if (movementMoves.length > 0 && Array.isArray(item.movements)) {
    for (const movement of item.movements as Record<string, unknown>[]) relocate(movement, movementMoves);
  }
  const moves: [string, string][] = [];
  for (const key of Object.keys(defaults) as Exclude<keyof TransactionFieldMap, 'instants'>[]) {
    if ((MOVEMENT_KEYS as readonly string[]).includes(key)) continue;
    if (fields[key] !== defaults[key]) moves.push([defaults[key], fields[key]]);
  }
  if (moves.length > 0) relocate(item, moves);
  return item;
}

/** A body holding `value` at `path`, or `value` itself (a bare JSON value) when `path` is null. */
export function wrapAt(path: string | null, value: unknown): unknown {
  if (path === null) return value;
  const body: Record<string, unknown> = {};
  setPath(body, path, value);
  return body;
}
