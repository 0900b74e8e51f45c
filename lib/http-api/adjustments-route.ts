/**
 * Where the accountant resolves warnings over the API (issue 27, "where the accountant works"):
 *
 * - `GET /profiles/{profile}/adjustments`: the newest version of the profile's adjustments and the
 *   history of its versions (what each added or removed, who and when); `ETag` is the version.
 * - `POST /profiles/{profile}/adjustments`: adds one adjustment (the body: an adjustment of
 *   `adjustmentSchema` without `by` and `at`, which the server sets from the authenticated caller
 *   and its clock). `If-Match` must name the version the caller read (`"0"` before the first):
 *   another writer's version in between answers `412`, nothing is written.
 * - `GET /reports/{jobId}/warnings`: a succeeded set's gains warnings, each with its suggestion
 *   (the proposal, ready to post) and the adjustment of the newest version that resolves it.
 * - `POST /reports/{jobId}/rerun`: the set's request again, as a new job over the newest version
 *   of the adjustments (its version and sha256 in the answer and the job's key).
 *
 * Access is per profile as for every route: another profile answers `403` (adjustments) or `404`
 * like a missing set (`/reports/{jobId}/…`).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import {
  type Adjustment,
  type AdjustmentsDocument,
  adjustmentSchema,
  ContradictoryAdjustmentsError,
  InvalidAdjustmentsError,
  proposalFromId,
  resolvingAdjustment,
  StaleAdjustmentsError,
  validateAdjustments,
  withdrawalOf,
} from '../adjustments/index.ts';
import { JobIdParams } from '../api-schemas/index.ts';
import { toMinorUnit } from '../domain/index.ts';
import { type JobFile, type JobRecord, jobIdFor, jobKeyAt, lookupProfile, startJob } from '../jobs/index.ts';
import { checkMeaning } from './adjustments-check.ts';
import { changeBase, versionConflict } from './adjustments-gate.ts';
import {
  type AdjustmentRouteDeps,
  type AdjustmentRouteHelpers,
  AdjustmentsView,
  AdjustmentView,
  errors,
  IfMatchHeaders,
  json,
  NewAdjustment,
  ProfileParams,
  Stored,
} from './adjustments-schemas.ts';
import type { AdjustmentsStore } from './adjustments-store.ts';
import { addWithdrawRoute } from './adjustments-withdraw-route.ts';
import { callerEvent, callerName } from './authorization.ts';
import { jsonObjectBody } from './body.ts';
import { ForbiddenProfileError, InvalidRequestError } from './errors.ts';
import { jobNotFound, visibleJob } from './job-route.ts';

export type { AdjustmentRouteHelpers } from './adjustments-schemas.ts';
export { ifMatchVersion } from './adjustments-schemas.ts';

type Deps = AdjustmentRouteDeps;

const WarningView = z
  .object({
    date: z.string(),
    transactionId: z.string(),
    kind: z.string(),
    token: z.string(),
    account: z.string(),
    quantity: z.string(),
    message: z.string(),
    suggestion: z.object({ text: z.string(), adjustment: AdjustmentView.nullable() }).nullable(),
    resolvedBy: z.string().nullable(),
  })
  .openapi('Warning');

const SetFigures = z
  .object({
    netGain: z
      .string()
      .openapi({ description: "the Gains summary's net gain or loss, all terms (its TOTAL rows added up)" }),
    currency: z.string(),
    adjustments: z
      .object({ version: z.number().int(), sha256: z.string().optional() })
      .nullable()
      .openapi({ description: 'the adjustments the set was built with (null: none)' }),
  })
  .openapi('SetFigures');

const WarningsView = z
  .object({
    jobId: z.string(),
    profile: z.string(),
    adjustmentsVersion: z.number().int(),
    figures: SetFigures.nullable(),
    open: z.number().int(),
    warnings: z.array(WarningView),
  })
  .openapi('Warnings');

const Rerun = z
  .object({
    jobId: z.string(),
    state: z.string(),
    statusUrl: z.string(),
    rerunOf: z.string(),
    adjustments: z.object({ version: z.number().int(), sha256: z.string().nullable() }),
  })
  .openapi('Rerun');

const getAdjustmentsRoute = createRoute({
  method: 'get',
  path: '/profiles/{profile}/adjustments',
  summary: "A profile's adjustments: the newest version and the history of versions",
  request: { params: ProfileParams },
  responses: {
    200: json('the newest version (ETag: its number)', AdjustmentsView),
    ...errors(400, 403, 404, 500),
  },
});

const postAdjustmentRoute = createRoute({
  method: 'post',
  path: '/profiles/{profile}/adjustments',
  summary: 'Add one adjustment (If-Match: the version read), attributed to the caller',
  middleware: jsonObjectBody,
  request: {
    params: ProfileParams,
    headers: IfMatchHeaders,
    body: { required: true, content: { 'application/json': { schema: NewAdjustment } } },
  },
  responses: {
    201: json('stored as a new version (ETag: its number)', Stored),
    ...errors(400, 401, 403, 404, 409, 412, 413, 415, 422, 428, 500),
  },
});

const warningsRoute = createRoute({
  method: 'get',
  path: '/reports/{jobId}/warnings',
  summary: "A set's gains warnings, each with its suggestion and the adjustment resolving it",
  request: { params: JobIdParams },
  responses: { 200: json('the warnings', WarningsView), ...errors(400, 404, 409, 500) },
});

const rerunRoute = createRoute({
  method: 'post',
  path: '/reports/{jobId}/rerun',
  summary: "The set's request again, as a new job over the newest adjustments",
  request: { params: JobIdParams },
  responses: { 202: json('the new job', Rerun), ...errors(400, 401, 404, 500, 503) },
});

/** Adds the adjustments and warnings routes to `app`. */
export function addAdjustmentRoutes(app: OpenAPIHono, deps: Deps, helpers: AdjustmentRouteHelpers): void {
  const { headers, apiError } = helpers;
  // The API's default hook reads a refused body as an export request: these routes name their own fields.
  const refuseField = (hook: {
    success: boolean;
    error?: { issues: { path: PropertyKey[]; message: string }[] };
  }): undefined => {
    if (hook.success) return undefined;
    const issue = hook.error?.issues[0];
    throw new InvalidRequestError(String(issue?.path[0] ?? 'request'), issue?.message ?? 'invalid');
  };

  app.openapi(
    getAdjustmentsRoute,
    async (c) => {
      const { profile } = c.req.valid('param');
      if (!helpers.mayUseProfile(c, profile)) throw new ForbiddenProfileError();
      lookupProfile(deps.registry, profile);
      const latest = (await deps.adjustments.latest(profile))?.document ?? null;
      const version = latest?.version ?? 0;
      const history = await historyOf(deps.adjustments, profile, latest);
      const body = {
        profile,
        version,
        adjustments: latest?.adjustments ?? [],
        withdrawn: latest?.withdrawn ?? [],
        history,
      };
      return c.json(body, 200, { ...headers, etag: `"${version}"` });
    },
    refuseField,
  );

  app.openapi(
    postAdjustmentRoute,
    async (c) => {
      const { profile } = c.req.valid('param');
      const base = await changeBase(c, deps, helpers, profile, 'change');
      if (base instanceof Response) return base as never;
      const { latest, current } = base;
      const adjustment = newAdjustment(c.req.valid('json'), base.by, deps.now(), current + 1);
      const taken = latest?.adjustments.find((a) => a.id === adjustment.id);
      const gone = withdrawalOf(latest, adjustment.id);
      if (taken !== undefined || gone !== undefined) {
        const message =
          gone === undefined
            ? `the adjustment ${adjustment.id} exists already`
            : `${adjustment.id} was an adjustment withdrawn by ${gone.by} at ${gone.at}: an id names one adjustment for good, give another`;
        return c.json(apiError('adjustment_exists', message, 'id'), 409, headers);
      }
      const doc: AdjustmentsDocument = {
        schema: 'pbs-export/adjustments@1',
        profile,
        version: current + 1,
        adjustments: [...(latest?.adjustments ?? []), adjustment],
        ...(latest?.withdrawn === undefined ? {} : { withdrawn: latest.withdrawn }),
      };
      const refused = (field: string, reason: string) =>
        c.json(apiError('adjustment_refused', `${field}: ${reason}`, field), 422, headers);
      try {
        validateAdjustments(doc);
      } catch (error) {
        if (error instanceof ContradictoryAdjustmentsError)
          return refused(referenceField(adjustment), error.message);
        if (error instanceof InvalidAdjustmentsError) return refused(error.field, error.reason);
        throw error;
      }
      const meaning = await checkMeaning(deps, doc, adjustment.id);
      if (meaning.issue !== null) return refused(meaning.issue.field, meaning.issue.reason);
      let version: number;
      try {
        version = (await deps.adjustments.put(profile, doc, current)).document.version;
      } catch (error) {
        // Another writer stored a version between the read above and this write.
        if (error instanceof StaleAdjustmentsError) return versionConflict(c, helpers, null) as never;
        throw error;
      }
      const body = { profile, version, adjustment, checkedAgainst: meaning.checkedAgainst };
      return c.json(body, 201, { ...headers, etag: `"${version}"` });
    },
    refuseField,
  );

  addWithdrawRoute(app, deps, helpers, refuseField);

  app.openapi(
    warningsRoute,
    async (c) => {
      const { jobId } = c.req.valid('param');
      const job = await visibleJob(c, deps.jobs, helpers, jobId);
      if (job === null) return jobNotFound(c, helpers, jobId);
      if (job.state !== 'succeeded' || job.result === undefined)
        return c.json(apiError('not_finished', `job ${jobId} has not succeeded`, 'jobId'), 409, headers);
      const file = job.result.files.find((f) => f.name.endsWith('_gains_warnings.csv'));
      if (file === undefined) {
        const reason = 'this set has no gains warnings CSV: request the gains report in CSV';
        return c.json(apiError('no_warnings_file', reason, 'jobId'), 409, headers);
      }
      const latest = (await deps.adjustments.latest(job.profile))?.document ?? null;
      const warnings = (await readWarnings(deps, file)).map((w) =>
        withResolution(w, latest?.adjustments ?? []),
      );
      const summary = job.result.files.find((f) => f.name.endsWith('_gains_summary.csv'));
      const net = summary === undefined ? null : await netGainOf(deps, summary);
      return c.json(
        {
          jobId,
          profile: job.profile,
          adjustmentsVersion: latest?.version ?? 0,
          figures: net === null ? null : { ...net, adjustments: job.request.adjustments ?? null },
          open: warnings.filter((w) => w.resolvedBy === null).length,
          warnings,
        },
        200,
        headers,
      );
    },
    refuseField,
  );

  app.openapi(
    rerunRoute,
    async (c) => {
      const { jobId } = c.req.valid('param');
      const job = await visibleJob(c, deps.jobs, helpers, jobId);
      if (job === null) return jobNotFound(c, helpers, jobId);
      const by = callerName(callerEvent(c));
      if (by === undefined)
        return c.json(
          apiError('caller_unknown', 'every re-run is attributed: no signed-in caller'),
          401,
          headers,
        );
      const latest = await deps.adjustments.latest(job.profile);
      // The digest of the stored bytes: the finish worker refuses a version whose bytes differ.
      const reference = {
        version: latest?.document.version ?? 0,
        sha256: latest?.sha256 ?? null,
      };
      const now = deps.now();
      // One re-run per set and adjustments version: asking again answers the same job.
      const key = jobKeyAt(
        `rerun:${jobId}:adjustments@${reference.version}:${reference.sha256 ?? 'none'}`,
        job.request,
        now,
      );
      const at = now.toISOString();
      // The set's own request over the newest version (none yet: without adjustments, as the set was).
      const { adjustments: _previous, ...asked } = job.request;
      // Only a gains set uses adjustments (and only its request may name them).
      const request =
        latest === null || !asked.reports.includes('gains')
          ? asked
          : { ...asked, adjustments: { version: latest.document.version, sha256: latest.sha256 } };
      const next: JobRecord = {
        jobId: jobIdFor(job.profile, key),
        profile: job.profile,
        request,
        state: 'queued',
        source: 'api',
        requestedBy: by,
        idempotencyKey: key,
        createdAt: at,
        updatedAt: at,
      };
      const { job: stored } = await startJob(deps, next, { sameRequest: () => true });
      return c.json(
        {
          jobId: stored.jobId,
          state: stored.state,
          statusUrl: helpers.statusUrlOf(stored.jobId),
          rerunOf: jobId,
          adjustments: reference,
        },
        202,
        { ...headers, location: helpers.statusUrlOf(stored.jobId) },
      );
    },
    refuseField,
  );
}

/**
 * The adjustment a body asks for, with `by` and `at` set here (refused in the body: they are the
 * server's), validated by the document's own schema; its id is the body's or `manual-v{version}`.
 */
export function newAdjustment(
  body: Record<string, unknown>,
  by: string,
  now: Date,
  version: number,
): Adjustment {
  for (const field of ['by', 'at'] as const) {
    if (Object.hasOwn(body, field))
      throw new InvalidRequestError(
        field,
        'set by the server from the signed-in caller and its clock; leave it out',
      );
  }
  const parsed = adjustmentSchema.safeParse({ id: `manual-v${version}`, ...body, by, at: now.toISOString() });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.map(String).join('.') : 'kind';
  throw new InvalidRequestError(field, issue?.message ?? 'invalid adjustment');
}

/** The field of `a` that names what it adjusts (a contradiction is about it). */
function referenceField(a: Adjustment): string {
  if (a.kind === 'transfer-pair') return 'outTxId';
  if (a.kind === 'spam') return 'token';
  if (a.kind === 'opening-lots') return 'lots';
  return 'txId';
}

/** What each version added, removed and withdrew (newest first, at most 100 versions). */
async function historyOf(store: AdjustmentsStore, profile: string, latest: AdjustmentsDocument | null) {
  const history: z.infer<typeof AdjustmentsView>['history'] = [];
  let newer = latest;
  while (newer !== null && history.length < 100) {
    const older = newer.version > 1 ? (await store.get(profile, newer.version - 1)).document : null;
    const before = new Set(older?.adjustments.map((a) => a.id) ?? []);
    const after = new Set(newer.adjustments.map((a) => a.id));
    history.push({
      version: newer.version,
      count: newer.adjustments.length,
      added: newer.adjustments
        .filter((a) => !before.has(a.id))
        .map((a) => ({ id: a.id, kind: a.kind, by: a.by, at: a.at })),
      removed: [...before].filter((id) => !after.has(id)),
      withdrawn: (newer.withdrawn ?? [])
        .slice(older?.withdrawn?.length ?? 0)
        .map((w) => ({ id: w.adjustment.id, kind: w.adjustment.kind, by: w.by, at: w.at, why: w.why })),
    });
    newer = older;
  }
  return history;
}

type WarningRow = Omit<z.infer<typeof WarningView>, 'resolvedBy'>;

/** The rows of a set's CSV file (any delimiter the CSV dialects write). */
async function readRows(deps: Deps, file: JobFile): Promise<Record<string, string>[]> {
  const answer = await deps.s3.send(new GetObjectCommand({ Bucket: deps.bucket, Key: file.key }));
  const text = (await answer.Body?.transformToString('utf-8')) ?? '';
  const header = text.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const delimiter = [';', '\t', ','].find((d) => header.includes(d)) ?? ',';
  return parse(text, { bom: true, columns: true, delimiter, skip_empty_lines: true }) as Record<
    string,
    string
  >[];
}

/**
 * The net gain or loss of a set's Gains summary: its TOTAL rows (one per term) added up, so
 * the accountant sees on the warnings page the figure a re-run changes. `null` when it has none.
 */
async function netGainOf(deps: Deps, file: JobFile): Promise<{ netGain: string; currency: string } | null> {
  const totals = (await readRows(deps, file)).filter((row) => row.token === 'TOTAL');
  if (totals.length === 0) return null;
  const net = totals.reduce((sum, row) => sum.plus(row.net ?? '0'), new Big(0));
  const currency = totals[0]?.currency ?? '';
  // To the currency's minor unit, as the reports show money (Big drops trailing zeros: `-298563.6`).
  return { netGain: toMinorUnit(net.toFixed(), currency === '' ? null : currency), currency };
}

/** The warnings of a set's CSV file. */
async function readWarnings(deps: Deps, file: JobFile): Promise<WarningRow[]> {
  const rows = await readRows(deps, file);
  return rows.map((row) => {
    const text = row.suggestion ?? '';
    const id = /\(proposed adjustment (\S+)\)$/.exec(text)?.[1];
    const words = text.replace(/ \(proposed adjustment \S+\)$/, '');
    return {
      date: row.date ?? '',
      transactionId: row.transaction_id ?? '',
      kind: row.kind ?? '',
      token: row.token ?? '',
      account: row.account ?? '',
      quantity: row.quantity ?? '',
      message: row.message ?? '',
      suggestion:
        text === '' ? null : { text: words, adjustment: id === undefined ? null : proposalFromId(id, words) },
    };
  });
}

function withResolution(w: WarningRow, adjustments: readonly Adjustment[]): z.infer<typeof WarningView> {
  return { ...w, resolvedBy: resolvingAdjustment(adjustments, w)?.id ?? null };
}
