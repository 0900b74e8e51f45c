/**
 * The practice view and "Verify this set" (issue 42, items 4 and 6).
 *
 * - `/portal/practice` (shell) and its view `/portal/view/practice`: for each client the signed-in
 *   person may use × each period with a report set, the state of that period: its latest set
 *   (run id, date), the open warnings of that set, reconciled or not, its opening balances
 *   against the closed period before (continues, break, not checked), closed, changed since
 *   close, and a button that verifies the set. Nothing is verified on load: a verification reads
 *   every byte of the set and of the sets it chains back to.
 * - `/portal/view/sets/{jobId}/verification`: the verdict of `GET /reports/{jobId}/verification`
 *   in words, one ✓ or ✗ line per check, per set, so a failure is read, not only seen in colour.
 *
 * Everything goes through the HTTP API with the person's own authorization (api-client.ts).
 */
import type { Context, Hono } from 'hono';
import type { FC } from 'hono/jsx';
import pLimit from 'p-limit';
import {
  type ApiErrorBody,
  type ApiFetch,
  apiCaller,
  isApiError,
  type JobDetail,
  portalApi,
} from './api-client.ts';
import type { ClosesAnswer } from './closes-types.ts';
import { type VerdictAnswer, VerdictView, VerifySetButton } from './verify-view.tsx';
import { ErrorView, type PageContext, Shell } from './views.tsx';

/** Jobs of a client the practice view reads (newest first): its months are those of these jobs. */
export const PRACTICE_JOBS = 100;

/**
 * Reconciled, a difference or not reconciled (with the result's words when the job carries them),
 * or not known (no reconciliation recorded with the set).
 */
export type ReconciledState = { status: string; note?: string } | null;

/**
 * The opening-balance check a job carries (`reconciliation.opening`: continues, break,
 * no-closed-previous or not-checked, with its words and the closed period compared with), or not
 * known (a set made before the check, or one not reconciled).
 */
export type OpeningState = { status: string; note?: string; previousPeriod?: string } | null;

/** One client × period of the practice view. */
export interface PracticeRow {
  profile: string;
  period: string;
  /** The period's latest succeeded set. */
  set: { jobId: string; runId?: string | undefined; finishedAt: string };
  /** Open warnings of that set; `null`: the set has no warnings list (or it could not be read). */
  openWarnings: number | null;
  reconciled: ReconciledState;
  /** Its opening balances against the closed period before. */
  opening: OpeningState;
  /** Who closed the period and when, at which run; `null`: not closed. */
  closed: { by: string; at: string; runId: string } | null;
  /** Restatements of the period found after its close. */
  restatements: number;
}

/**
 * A reconciliation status carried by a job (`reconciliation.status`, at the top or in its
 * result), read defensively: any other shape is "not yet".
 */
export function reconciliationOf(job: unknown): ReconciledState {
  const pick = (value: unknown): ReconciledState => {
    const found = (value as { reconciliation?: { status?: unknown; note?: unknown } } | null)?.reconciliation;
    const status = found?.status;
    if (typeof status !== 'string' || status === '') return null;
    return typeof found?.note === 'string' && found.note !== '' ? { status, note: found.note } : { status };
  };
  return pick(job) ?? pick((job as { result?: unknown } | null)?.result);
}

/**
 * The opening-balance check carried by a job (`reconciliation.opening`, at the top or in its
 * result), read defensively like {@link reconciliationOf}: any other shape is "not yet".
 */
export function openingOf(job: unknown): OpeningState {
  const pick = (value: unknown): OpeningState => {
    const found = (value as { reconciliation?: { opening?: Record<string, unknown> } } | null)?.reconciliation
      ?.opening;
    const status = found?.status;
    if (typeof status !== 'string' || status === '') return null;
    const words = (key: 'note' | 'previousPeriod') => {
      const value = found?.[key];
      return typeof value === 'string' && value !== '' ? { [key]: value } : {};
    };
    return { status, ...words('note'), ...words('previousPeriod') };
  };
  return pick(job) ?? pick((job as { result?: unknown } | null)?.result);
}

/** The rows of one client: each period's latest set and its state, newest period first. */
async function clientRows(c: Context, api: ApiFetch, profile: string): Promise<PracticeRow[]> {
  const portal = portalApi(c, api);
  const call = apiCaller(c, api);
  const listed = await portal.listJobs(profile, PRACTICE_JOBS);
  if (isApiError(listed.body)) return [];
  const latest = new Map<string, string>();
  for (const job of listed.body.jobs) {
    if (job.state === 'succeeded' && !latest.has(job.period)) latest.set(job.period, job.jobId);
  }
  const closesAnswer = await portal.listCloses(profile);
  const closes: ClosesAnswer = isApiError(closesAnswer.body)
    ? { periods: [], restatements: [] }
    : closesAnswer.body;
  const limit = pLimit(4);
  const rows = await Promise.all(
    [...latest].map(([period, jobId]) =>
      limit(async (): Promise<PracticeRow | undefined> => {
        const detail = await portal.getJob(jobId);
        if (isApiError(detail.body)) return undefined;
        const job = detail.body as JobDetail;
        const warnings = await call<{ open?: unknown }>(`/reports/${encodeURIComponent(jobId)}/warnings`);
        const open = warnings.status === 200 ? warnings.body.open : undefined;
        const closed = closes.periods.find((p) => p.period === period)?.closed ?? null;
        return {
          profile,
          period,
          set: { jobId, runId: job.runId, finishedAt: job.updatedAt },
          openWarnings: typeof open === 'number' ? open : null,
          reconciled: reconciliationOf(job),
          opening: openingOf(job),
          closed: closed ? { by: closed.by, at: closed.at, runId: closed.runId } : null,
          restatements: closes.restatements.filter((r) => r.period === period).length,
        };
      }),
    ),
  );
  return rows
    .filter((row): row is PracticeRow => row !== undefined)
    .sort((a, b) => (a.period < b.period ? 1 : a.period > b.period ? -1 : 0));
}

/**
 * Registers the practice view and the verification view on the portal `app` (after its bearer
 * check on `/view/*`); `profilesOf`: the profiles the caller may use, sorted.
 */
export function addPracticeRoutes(
  app: Hono,
  api: ApiFetch,
  ctx: PageContext,
  profilesOf: (c: Context) => readonly string[],
): void {
  app.get('/practice', (c) =>
    c.html(<Shell ctx={ctx} title="Practice" view={`${ctx.base}/view/practice`} />),
  );
  app.get('/view/practice', async (c) => {
    const rows: PracticeRow[] = [];
    for (const profile of profilesOf(c)) rows.push(...(await clientRows(c, api, profile)));
    return c.html(<PracticeView ctx={ctx} rows={rows} />);
  });
  app.get('/view/sets/:jobId/verification', async (c) => {
    const jobId = c.req.param('jobId');
    const answer = await apiCaller(
      c,
      api,
    )<VerdictAnswer | ApiErrorBody>(`/reports/${encodeURIComponent(jobId)}/verification`);
    if (isApiError(answer.body)) {
      const status = answer.status === 404 ? 404 : 409;
      return c.html(<ErrorView ctx={ctx} title="Not verified" message={answer.body.error.message} />, status);
    }
    return c.html(<VerdictView verdict={answer.body} />);
  });
}

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

const ClosedCell: FC<{ row: PracticeRow }> = ({ row }) => {
  if (row.closed === null) return <>not closed</>;
  const other = row.closed.runId !== row.set.runId ? ` at run ${row.closed.runId}` : '';
  return (
    <>
      ✓ closed by {row.closed.by}, {when(row.closed.at)}
      {other}
    </>
  );
};

/**
 * ✓ reconciled, or ✗ not reconciled with why: the result's words less their leading "not
 * reconciled:" (how many balances differ, or what kept it from being made), else the status.
 */
const ReconciledCell: FC<{ state: ReconciledState }> = ({ state }) => {
  if (state === null) return <span class="muted">— not yet</span>;
  if (/^(reconciled|ok|holds|zero)$/i.test(state.status)) return <>✓ reconciled</>;
  const why = (state.note ?? state.status).replace(/^not[ -]reconciled\b:?\s*/i, '');
  return (
    <>
      <strong>✗ not reconciled</strong>
      {why === '' ? null : <span class="muted"> — {why}</span>}
    </>
  );
};

/**
 * The opening check in words: ✓ continues the closed month before, ✗ a break with it (how many
 * balances differ), or not checked and why (the check's words less their leading phrase).
 */
const OpeningCell: FC<{ state: OpeningState }> = ({ state }) => {
  if (state === null) return <span class="muted">— not yet</span>;
  const before = state.previousPeriod ?? 'the closed month before';
  const why = (state.note ?? '').replace(/^opening balances (break|not checked)\b:?\s*/i, '');
  switch (state.status) {
    case 'continues':
      return <>✓ opening continues {before}</>;
    case 'break':
      return (
        <>
          <strong>✗ opening break with {before}</strong>
          {why === '' ? null : <span class="muted"> — {why}</span>}
        </>
      );
    case 'no-closed-previous':
    case 'not-checked':
      return (
        <>
          opening not checked
          {why === '' ? null : <span class="muted"> — {why}</span>}
        </>
      );
    default:
      return (
        <>
          opening {state.status}
          {state.note === undefined ? null : <span class="muted"> — {state.note}</span>}
        </>
      );
  }
};

/** One period of a client: a row whose cells name their column at phone width too. */
const PracticeLine: FC<{ ctx: PageContext; row: PracticeRow }> = ({ ctx, row }) => (
  <tr id={`practice-${row.profile}-${row.period}`}>
    <th scope="row" data-label="Month">
      {row.period}
    </th>
    <td data-label="Exported">
      <a href={`${ctx.base}/clients/${encodeURIComponent(row.profile)}#set-${row.set.jobId}`}>
        ✓ {row.set.runId ?? row.set.jobId}
      </a>{' '}
      <span class="muted">({when(row.set.finishedAt)})</span>
    </td>
    <td data-label="Warnings open">
      {row.openWarnings === null ? (
        '—'
      ) : row.openWarnings === 0 ? (
        '✓ none open'
      ) : (
        <a href={`${ctx.base}/sets/${row.set.jobId}/warnings`}>✗ {row.openWarnings} open</a>
      )}
    </td>
    <td data-label="Reconciled">
      <ReconciledCell state={row.reconciled} />
    </td>
    <td data-label="Opening balances">
      <OpeningCell state={row.opening} />
    </td>
    <td data-label="Closed">
      <ClosedCell row={row} />
    </td>
    <td data-label="Changed since close">
      {row.restatements === 0 ? (
        'no'
      ) : (
        <strong>{`✗ changed (${row.restatements} restatement${row.restatements === 1 ? '' : 's'})`}</strong>
      )}
    </td>
    <td data-label="Verified">
      <VerifySetButton ctx={ctx} jobId={row.set.jobId} label="Verify" />
    </td>
  </tr>
);

/** The practice view: every client's periods with a set, by client, newest period first. */
export const PracticeView: FC<{ ctx: PageContext; rows: readonly PracticeRow[] }> = ({ ctx, rows }) => {
  const profiles = [...new Set(rows.map((row) => row.profile))].sort();
  return (
    <section data-title="Practice" class="practice">
      <h1>Practice</h1>
      <p>
        Each client's months with a report set, newest first: which are exported, have warnings open, are
        reconciled, continue the closed month before in their opening balances, closed or changed since their
        close. Verify reads every file of a set, so it runs only when you press it.
      </p>
      {profiles.length === 0 ? <p>No client of yours has a report set yet.</p> : null}
      {profiles.map((profile) => (
        <section aria-labelledby={`practice-${profile}`}>
          <h2 id={`practice-${profile}`}>
            <a href={`${ctx.base}/clients/${encodeURIComponent(profile)}`}>{profile}</a>
          </h2>
          <table class="practice-table">
            <caption class="visually-hidden">Months of {profile}</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Exported</th>
                <th scope="col">Warnings open</th>
                <th scope="col">Reconciled</th>
                <th scope="col">Opening balances</th>
                <th scope="col">Closed</th>
                <th scope="col">Changed since close</th>
                <th scope="col">Verified</th>
              </tr>
            </thead>
            <tbody>
              {rows
                .filter((row) => row.profile === profile)
                .map((row) => (
                  <PracticeLine ctx={ctx} row={row} />
                ))}
            </tbody>
          </table>
        </section>
      ))}
    </section>
  );
};
