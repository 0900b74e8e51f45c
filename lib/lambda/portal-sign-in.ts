/**
 * The portal's sign-in with an OAuth issuer: a public client (authorization code flow with PKCE).
 * One schema for the deployment config (`infra/config.ts`, `jwt.portalClient`) and the HTTP API
 * function's `PBS_PORTAL_SIGN_IN` (`env.ts`), which the stack sets from it.
 */
import { z } from 'zod';

/** `{clientId, authorizeUrl, tokenUrl, scopes}`: https endpoints, at least one scope. */
export const portalSignInSchema = z.strictObject({
  clientId: z.string().min(1),
  authorizeUrl: z.url({ protocol: /^https$/ }),
  tokenUrl: z.url({ protocol: /^https$/ }),
  scopes: z.array(z.string().regex(/^[\x21-\x7e]+$/)).min(1),
});

/** Sign-in settings as {@link portalSignInSchema} yields them. */
export type PortalSignInSettings = z.output<typeof portalSignInSchema>;
