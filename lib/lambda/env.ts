/**
 * The environment variables of the Lambda functions: set by the stack (`infra/`), read only by
 * the runtime (`runtime.ts`), once per process.
 */

/** Environment variables the functions read (set by the stack). */
export const ENV = {
  /** Name of the bucket holding jobs, work files and reports. */
  bucket: 'PBS_BUCKET',
  /** JSON {@link ProfileRegistry}: the registered portfolios. */
  profiles: 'PBS_PROFILES',
  /** Base URL of the Portfolio Balance Service. */
  baseUrl: 'PBS_BASE_URL',
  /** Optional JSON `ServiceShapeOverrides` (GAPS.md alternatives). */
  serviceShape: 'PBS_SERVICE_SHAPE',
  /** Requests per second per client (the service allows 20 per key). */
  requestsPerSecond: 'PBS_REQUESTS_PER_SECOND',
  /** Cache age of secrets read through Powertools parameters, in seconds. */
  secretMaxAgeSeconds: 'PBS_SECRET_MAX_AGE_SECONDS',
  /** ARN of the export state machine (HTTP API and monthly start functions). */
  exportStateMachineArn: 'PBS_EXPORT_STATE_MACHINE_ARN',
  /** Expiry of presigned download links, in seconds. */
  linkExpirySeconds: 'PBS_LINK_EXPIRY_SECONDS',
  /**
   * HTTP API only, optional: the JWT claim listing the profiles a caller may use. Unset: every
   * caller may use every registered profile (see `authorization.ts`).
   */
  profilesClaim: 'PBS_PROFILES_CLAIM',
  /**
   * HTTP API only: the URL callers reach the API at (`https://host[/base path]`); status URLs are
   * built from it, never from request headers. The stack sets the API's own endpoint.
   */
  publicBaseUrl: 'PBS_PUBLIC_BASE_URL',
} as const;

/**
 * Optional environment variables added for S3-compatible stores (local runs and tests):
 * the endpoint switches the S3 client to path-style addressing and on-demand checksums.
 */
export const OPTIONAL_ENV = {
  /** S3-compatible endpoint such as `http://127.0.0.1:4568`; unset on AWS. */
  s3Endpoint: 'PBS_S3_ENDPOINT',
} as const;
