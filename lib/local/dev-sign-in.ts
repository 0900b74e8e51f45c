/**
 * FOR LOCAL USE ONLY (`npm run serve`): the portal's development sign-in and the local stand-in
 * for API Gateway's JWT authorizer.
 *
 * A token is an HS256 JWT signed with a key this process draws at start (never written anywhere):
 * it lists the chosen profiles in the `pbs_profiles` claim, as a deployment's issuer would, and
 * expires after an hour. The authorizer checks a request's `Authorization: Bearer` token as API
 * Gateway's does and hands the API its claims the way API Gateway does
 * (`requestContext.authorizer.jwt.claims`), so the API's own profile checks run unchanged.
 * A request without a token stands for the operator on loopback (every profile, like a SigV4
 * caller), so the README's curl examples keep working; the portal's views always need a token.
 */
import { randomBytes } from 'node:crypto';
import { sign, verify } from 'hono/jwt';
import { ALL_PROFILES, DEFAULT_PROFILES_CLAIM, type FetchHandler } from '../http-api/index.ts';
import type { DevelopmentSignIn } from '../portal/index.ts';

/** Issuer of development tokens. */
export const DEV_ISSUER = 'pbs-export-local-development-sign-in';

/** Lifetime of a development token: one hour. */
export const DEV_TOKEN_SECONDS = 3600;

/** The development sign-in plus the check of its tokens. */
export interface DevAuth {
  signIn: DevelopmentSignIn;
  /** The claims of a valid token; throws on any other. */
  verify(token: string): Promise<Record<string, unknown>>;
  /** The claim the API reads the profiles from. */
  profilesClaim: string;
}

/** A development sign-in with a fresh key. */
export function createDevAuth(now: () => Date = () => new Date()): DevAuth {
  const key = randomBytes(32).toString('base64url');
  const profilesClaim = DEFAULT_PROFILES_CLAIM;
  return {
    profilesClaim,
    signIn: {
      kind: 'development',
      async issue(profiles) {
        const iat = Math.floor(now().getTime() / 1000);
        const token = await sign(
          {
            iss: DEV_ISSUER,
            sub: 'developer',
            [profilesClaim]: [...profiles],
            iat,
            exp: iat + DEV_TOKEN_SECONDS,
          },
          key,
          'HS256',
        );
        return { token, expiresInSeconds: DEV_TOKEN_SECONDS };
      },
    },
    verify: async (token) =>
      (await verify(token, key, { alg: 'HS256', iss: DEV_ISSUER })) as Record<string, unknown>,
  };
}

/** The environment the API reads a caller's claims from (`callerEvent`), as on Lambda. */
function withClaims(claims: Record<string, unknown>) {
  return { event: { requestContext: { authorizer: { jwt: { claims, scopes: null } } } } };
}

/**
 * The API behind the local authorizer: a bearer token must be valid (else `401` as API Gateway
 * answers it, `{"message":"Unauthorized"}`), and its claims reach the API; no token: every profile.
 */
export function withDevAuthorizer(fetch: FetchHandler, auth: DevAuth): FetchHandler {
  return async (request) => {
    const header = request.headers.get('authorization');
    if (header === null) return fetch(request, withClaims({ [auth.profilesClaim]: ALL_PROFILES }));
    const token = /^Bearer (\S+)$/i.exec(header)?.[1];
    let claims: Record<string, unknown> | undefined;
    if (token !== undefined) claims = await auth.verify(token).catch(() => undefined);
    if (claims === undefined) return Response.json({ message: 'Unauthorized' }, { status: 401 });
    return fetch(request, withClaims(claims));
  };
}
