/**
 * `DELETE /profiles/{profile}/adjustments/{id}?why=…`: withdraws one adjustment. The answer is
 * a new version without it, whose `withdrawn` records the adjustment as it was, who withdrew it
 * (the signed-in caller), when (the server's clock) and why; every version before stays as it
 * was. `If-Match` must name the version read, as for adding one (`428`, `412`).
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { StaleAdjustmentsError, UnknownAdjustmentError, withdrawAdjustment } from '../adjustments/index.ts';
import { changeBase, versionConflict } from './adjustments-gate.ts';
import {
  type AdjustmentRouteDeps,
  type AdjustmentRouteHelpers,
  errors,
  IfMatchHeaders,
  json,
  ProfileParams,
  Withdrawn,
} from './adjustments-schemas.ts';
import { InvalidRequestError } from './errors.ts';

const WithdrawParams = ProfileParams.extend({
  id: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'manual-v3' }),
});

const WithdrawQuery = z.object({
  why: z
    .string({ error: 'required: say why the adjustment is withdrawn (kept in the audit trail)' })
    .trim()
    .min(1, 'say why the adjustment is withdrawn (kept in the audit trail)')
    .max(2000)
    .openapi({ example: 'The service valued the movement after all' }),
});

const withdrawRoute = createRoute({
  method: 'delete',
  path: '/profiles/{profile}/adjustments/{id}',
  summary: 'Withdraw one adjustment (If-Match: the version read); the withdrawal is kept in the history',
  request: { params: WithdrawParams, query: WithdrawQuery, headers: IfMatchHeaders },
  responses: {
    200: json('a new version without it, the withdrawal recorded (ETag: its number)', Withdrawn),
    ...errors(400, 401, 403, 404, 412, 428, 500),
  },
});

/** Adds the withdrawal route to `app`. */
export function addWithdrawRoute(
  app: OpenAPIHono,
  deps: Pick<AdjustmentRouteDeps, 'registry' | 'adjustments' | 'now'>,
  helpers: AdjustmentRouteHelpers,
  refuseField: (hook: {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  }) => undefined,
): void {
  const { headers, apiError } = helpers;
  app.openapi(
    withdrawRoute,
    async (c) => {
      const { profile, id } = c.req.valid('param');
      const { why } = c.req.valid('query');
      const base = await changeBase(c, deps, helpers, profile, 'withdrawal');
      if (base instanceof Response) return base as never;
      let document: ReturnType<typeof withdrawAdjustment>;
      try {
        document = withdrawAdjustment(profile, base.latest, id, {
          by: base.by,
          at: deps.now().toISOString(),
          why,
        });
      } catch (error) {
        if (error instanceof UnknownAdjustmentError)
          return c.json(apiError('adjustment_not_found', error.message, 'id'), 404, headers);
        throw error;
      }
      let version: number;
      try {
        version = (await deps.adjustments.put(profile, document, base.current)).document.version;
      } catch (error) {
        if (error instanceof StaleAdjustmentsError) return versionConflict(c, helpers, null) as never;
        throw error;
      }
      const withdrawn = document.withdrawn?.at(-1);
      if (withdrawn === undefined) throw new InvalidRequestError('id', 'nothing was withdrawn');
      return c.json({ profile, version, withdrawn }, 200, { ...headers, etag: `"${version}"` });
    },
    refuseField,
  );
}
