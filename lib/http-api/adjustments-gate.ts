/**
 * What every change of a profile's adjustments passes first (adding one, withdrawing one): the
 * caller may use the profile, the profile is registered, someone signed in (every change is
 * attributed), and `If-Match` names the newest version (else `428` or `412`, nothing written).
 */
import type { Context } from 'hono';
import type { AdjustmentsDocument } from '../adjustments/index.ts';
import { lookupProfile } from '../jobs/index.ts';
import type { AdjustmentRouteDeps, AdjustmentRouteHelpers } from './adjustments-schemas.ts';
import { ifMatchVersion } from './adjustments-schemas.ts';
import { callerEvent, callerName } from './authorization.ts';
import { ForbiddenProfileError } from './errors.ts';

/** A change let through: who makes it, and the newest version it is based on. */
export interface ChangeBase {
  by: string;
  latest: AdjustmentsDocument | null;
  /** The newest version's number (0: none yet). */
  current: number;
}

/** The `412` of a change based on a version that is no longer the newest (`null`: not known). */
export function versionConflict(c: Context, helpers: AdjustmentRouteHelpers, current: number | null) {
  const message =
    current === null
      ? 'another change was stored first: read the adjustments again'
      : `the newest version is ${current}: read it again and send If-Match: "${current}"`;
  return c.json(helpers.apiError('version_conflict', message, 'If-Match'), 412, helpers.headers);
}

/**
 * The base of a change of `profile`'s adjustments by the caller of `c` (`what`: "change",
 * "withdrawal", for the `401`'s words), or the answer refusing it.
 */
export async function changeBase(
  c: Context,
  deps: Pick<AdjustmentRouteDeps, 'registry' | 'adjustments'>,
  helpers: AdjustmentRouteHelpers,
  profile: string,
  what: string,
): Promise<ChangeBase | Response> {
  const { headers, apiError } = helpers;
  if (!helpers.mayUseProfile(c, profile)) throw new ForbiddenProfileError();
  lookupProfile(deps.registry, profile);
  const by = callerName(callerEvent(c));
  if (by === undefined)
    return c.json(
      apiError('caller_unknown', `every ${what} is attributed: no signed-in caller`),
      401,
      headers,
    );
  const expected = ifMatchVersion(c.req.header('if-match'));
  if (expected === null)
    return c.json(
      apiError(
        'if_match_required',
        'If-Match must name the version read, e.g. "3" ("0" before the first)',
        'If-Match',
      ),
      428,
      headers,
    );
  const latest = (await deps.adjustments.latest(profile))?.document ?? null;
  const current = latest?.version ?? 0;
  if (expected !== current) return versionConflict(c, helpers, current);
  return { by, latest, current };
}
