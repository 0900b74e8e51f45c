/**
 * The accountant portal: server-rendered pages (Hono JSX) mounted by the HTTP API at `/portal`,
 * one static script for sign-in tokens, views and downloads, and the development sign-in of
 * `npm run serve`.
 */
export {
  type ApiFetch,
  type JobDetail,
  type JobFileView,
  type JobSummary,
  type PortalApi,
  portalApi,
} from './api-client.ts';
export { ASSET_DIR, ASSETS, type AssetName, readAsset } from './assets.ts';
export { DevSignInError, PortalApiError, SignInRequiredError } from './errors.ts';
export { FAVICON_HEADERS, FAVICON_SVG } from './favicon.ts';
export { FIELDS, type FormFields, issuesByField, requestFromForm } from './form.ts';
export {
  createPortal,
  type DevelopmentSignIn,
  MAX_FORM_BYTES,
  type OAuthSignIn,
  PORTAL_PATH,
  type PortalDeps,
  type PortalOptions,
  SETS_LISTED,
} from './portal.tsx';
export { createProgressReader, type ProgressReader, type ShardProgress } from './progress.ts';
export { formatBytes, readMeFile, startedBy } from './views.tsx';
