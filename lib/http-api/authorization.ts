/**
 * Which profiles a caller of the HTTP API may use.
 *
 * - Without a profiles claim configured (IAM authorization, or a JWT authorizer with
 *   `profilesClaim: null`), every caller API Gateway lets through may use every registered
 *   profile: IAM decides who may invoke the API at all, not which portfolio.
 * - With a profiles claim (`PBS_PROFILES_CLAIM`, set by the stack for the JWT authorizer), the
 *   caller's verified JWT claims (`requestContext.authorizer.jwt.claims`) must list the profile:
 *   an array, or a string of names separated by spaces or commas (API Gateway renders an array
 *   claim as `[a b]`; that form is read too). `*` stands for every profile. A caller without the
 *   claim, or a request without JWT claims, may use no profile (fail closed).
 */
import type { Context } from 'hono';
import type { ApiEvent } from './errors.ts';

/** The claim read when the deployment does not name another. */
export const DEFAULT_PROFILES_CLAIM = 'pbs_profiles';

/** A claim value that grants every profile. */
export const ALL_PROFILES = '*';

/** A claim name as the configuration accepts it: 1-256 visible ASCII characters. */
export const CLAIM_NAME = /^[\x21-\x7e]{1,256}$/;

/** What a caller may use: every profile, or the listed ones. */
export type ProfileAccess = { all: true } | { all: false; profiles: ReadonlySet<string> };

/**
 * The names in a profiles claim value: an array of strings, or one string of names separated by
 * whitespace or commas, optionally in `[…]` (API Gateway's rendering of an array claim) with
 * quoted items. Anything else (numbers, objects) lists nothing.
 */
export function parseProfilesClaim(value: unknown): string[] {
  const items = Array.isArray(value) ? value : typeof value === 'string' ? [value] : [];
  const names: string[] = [];
  for (const item of items) {
    if (typeof item !== 'string') continue;
    const text = item.trim().replace(/^\[(.*)\]$/s, '$1');
    for (const part of text.split(/[\s,]+/)) {
      const name = part.replace(/^["']|["']$/g, '');
      if (name !== '' && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/**
 * The API Gateway event of a request on Lambda (`hono/aws-lambda` passes it as `c.env.event`);
 * `undefined` locally, where no authorizer ran.
 */
export function callerEvent(c: Context): ApiEvent | undefined {
  return (c.env as { event?: ApiEvent } | undefined)?.event;
}

/** The authorizer context of an HTTP API (payload 2.0) event: JWT claims or the IAM caller. */
type Authorizer = { jwt?: { claims?: unknown }; iam?: { userArn?: unknown } } | null | undefined;

/** What API Gateway's authorizer vouched for in `event`, unchecked beyond its place. */
function authorizerOf(event: ApiEvent | undefined): Authorizer {
  return (event?.requestContext as { authorizer?: unknown } | undefined)?.authorizer as Authorizer;
}

/** The verified JWT claims of an HTTP API (payload 2.0) event, if any. */
function jwtClaims(event: ApiEvent | undefined): Record<string, unknown> | undefined {
  const jwt = authorizerOf(event)?.jwt;
  const claims = jwt?.claims;
  return claims !== null && typeof claims === 'object' && !Array.isArray(claims)
    ? (claims as Record<string, unknown>)
    : undefined;
}

/**
 * The access of the caller of `event`: every profile when `profilesClaim` is undefined (no
 * per-profile restriction configured), else the profiles its JWT claim lists.
 */
export function profileAccess(event: ApiEvent | undefined, profilesClaim: string | undefined): ProfileAccess {
  if (profilesClaim === undefined) return { all: true };
  const claims = jwtClaims(event);
  const names =
    claims !== undefined && Object.hasOwn(claims, profilesClaim)
      ? parseProfilesClaim(claims[profilesClaim])
      : [];
  if (names.includes(ALL_PROFILES)) return { all: true };
  return { all: false, profiles: new Set(names) };
}

/** Whether `access` allows `profile`. */
export function mayUse(access: ProfileAccess, profile: string): boolean {
  return access.all || access.profiles.has(profile);
}

/** Longest caller name a job record keeps (an issuer's claim is not ours to trust for size). */
const MAX_CALLER_NAME = 200;

/**
 * Who is calling, in words a colleague recognises, for the job record's `requestedBy`: the
 * verified JWT's `email`, else its `cognito:username` or `username`, else its `sub`; with IAM
 * (SigV4), the caller's ARN. `undefined` when API Gateway vouched for no one (a local request
 * without a token). Control characters are dropped and the text is cut at 200 characters.
 */
export function callerName(event: ApiEvent | undefined): string | undefined {
  const claims = jwtClaims(event);
  const fromJwt = ['email', 'cognito:username', 'username', 'sub']
    .map((claim) => claims?.[claim])
    .find((value): value is string => typeof value === 'string' && value.trim() !== '');
  const iam = authorizerOf(event)?.iam?.userArn;
  const name = fromJwt ?? (typeof iam === 'string' && iam !== '' ? iam : undefined);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
  return name?.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, MAX_CALLER_NAME);
}
