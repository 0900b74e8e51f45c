/**
 * Closed periods in the portal: a "Close this month" form on each report set (who closes is the
 * signed-in person, as the API records the caller), the closed state of a set with who and when,
 * and the client's closed periods with their history (reopens) and restatements.
 */
import type { FC } from 'hono/jsx';
import type { ClosesAnswer, JobDetail, RestatementView } from './api-client.ts';
import type { PageContext } from './page-context.ts';
import { fileOrder, formatBytes } from './wording.ts';

export type { CloseRecordView, ClosesAnswer, RestatementView } from './api-client.ts';

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** On a report set: who closed it and when, or the form that closes its period at it. */
export const CloseSetForm: FC<{
  ctx: PageContext;
  profile: string;
  job: JobDetail;
  closes: ClosesAnswer;
}> = ({ ctx, profile, job, closes }) => {
  const closed = closes.periods.find((p) => p.period === job.period)?.closed ?? null;
  if (closed !== null && closed.runId === job.runId) {
    return (
      <p class="closed">
        Closed by {closed.by} on {when(closed.at)}
        {closed.reason ? `: ${closed.reason}` : ''}. This set is never replaced or deleted.
      </p>
    );
  }
  if (closed !== null) return <p class="muted">{job.period} is closed at another report set.</p>;
  if (job.runId === undefined) return null;
  const what = /^\d{4}-\d{2}$/.test(job.period) ? 'month' : 'period';
  return (
    <form method="post" action={`${ctx.base}/view/clients/${encodeURIComponent(profile)}/close`} data-submit>
      <input type="hidden" name="period" value={job.period} />
      <input type="hidden" name="runId" value={job.runId} />
      <label for={`reason-${job.jobId}`}>Reason (optional)</label>{' '}
      <input id={`reason-${job.jobId}`} name="reason" type="text" maxlength={2000} />{' '}
      <button type="submit">Close this {what}</button>
    </form>
  );
};

/**
 * A restatement's files, each with a download button like a set's: the portal script asks
 * `GET /closes` for a fresh link when it is pressed (`data-restatement`: the restatement's prefix).
 */
const RestatementFiles: FC<{ profile: string; restatement: RestatementView }> = ({
  profile,
  restatement,
}) => {
  const files = [...(restatement.files ?? [])].sort(
    (a, b) => fileOrder(a.name) - fileOrder(b.name) || (a.name < b.name ? -1 : 1),
  );
  if (files.length === 0) return null;
  return (
    <ul class="restatement-files">
      {files.map((file) => (
        <li>
          <code>{file.name}</code> <span class="muted">({formatBytes(file.bytes)})</span>{' '}
          <button
            type="button"
            class="download"
            data-download
            data-profile={profile}
            data-restatement={restatement.prefix}
            data-file={file.name}
          >
            {file.name.endsWith('README.txt') ? 'Read me' : 'Download'}
            <span class="visually-hidden"> {file.name}</span>
          </button>
        </li>
      ))}
    </ul>
  );
};

/** The client's closed periods, who closed (or reopened) them, and their restatements. */
export const ClosedPeriods: FC<{ profile: string; closes: ClosesAnswer }> = ({ profile, closes }) => (
  <section id="closed-periods" aria-labelledby="closed-heading">
    <h2 id="closed-heading">Closed periods</h2>
    {closes.periods.length === 0 ? <p>No period is closed.</p> : null}
    {closes.periods.map((state) => (
      <article class="set">
        <h3>
          {state.period} <span class="muted">({state.closed ? 'closed' : 'reopened'})</span>
        </h3>
        <ul>
          {state.history.map((record) => (
            <li>
              {record.action === 'close' ? 'Closed' : 'Reopened'} by {record.by} on {when(record.at)} (run{' '}
              {record.runId}){record.reason ? `: ${record.reason}` : ''}
            </li>
          ))}
        </ul>
        {closes.restatements
          .filter((r) => r.period === state.period)
          .map((r) => (
            <div class="restatement">
              <p>
                <strong>Changed after close</strong> (checked {when(r.checkedAt)}): {r.summary}. Restatement:{' '}
                <code>{r.prefix}</code>
              </p>
              <RestatementFiles profile={profile} restatement={r} />
            </div>
          ))}
      </article>
    ))}
  </section>
);
