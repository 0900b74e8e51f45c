/**
 * What every page and view of the portal shares, without markup: where the portal and the API
 * live and how people sign in ({@link PageContext}), and sizes in words.
 */

/** How people sign in, as the pages show it. */
export type SignInView =
  | { kind: 'development'; profiles: readonly string[] }
  | { kind: 'oauth'; authorizeUrl: string; tokenUrl: string; clientId: string; scopes: readonly string[] };

/** What every page needs: where the portal and the API live, and how people sign in. */
export interface PageContext {
  /** Path of the portal, e.g. `/portal` (links are built from it). */
  base: string;
  /** Path of the API root, e.g. `` or `/v1` (the script calls `{api}/reports/…`). */
  api: string;
  signIn: SignInView;
}

/** `12.3 kB`: sizes as people read them (the exact byte count is in the title). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
