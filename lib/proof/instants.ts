/**
 * `verify`'s instants in words, as the rest of the product says them (`instantWords`): a day in
 * the time zone of the set being verified (its manifest's `period.timeZone`; UTC for a set made
 * before manifests recorded one), never the UTC instant the manifest's fields keep.
 */
import { type DayEdge, instantWords } from '../domain/index.ts';

/** The time zone a manifest's period is in; `UTC` when it records none. */
export function zoneOf(manifest: unknown): string {
  const zone = (manifest as { period?: { timeZone?: unknown } } | null)?.period?.timeZone;
  return typeof zone === 'string' && zone !== '' ? zone : 'UTC';
}

/**
 * `iso` in words in the zone of `manifest`, read as a period's `edge` when it is a day boundary;
 * what is no instant (a manifest's field may hold anything) is said as it is.
 */
export function instantOf(manifest: unknown, iso: unknown, edge: DayEdge): string {
  return typeof iso === 'string' ? instantWords(iso, zoneOf(manifest), edge) : String(iso);
}
