/**
 * Text as the reports order it: by UTF-16 code units, the same in every locale (not `localeCompare`),
 * so a report's rows come out in one order wherever it runs.
 */

/** Orders two strings by their UTF-16 code units: negative, zero or positive, as `sort` expects. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
