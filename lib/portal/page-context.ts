/** What every page of the portal is rendered with (`views.tsx`, `closes-view.tsx`, `request-view.tsx`). */

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
