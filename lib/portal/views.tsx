/**
 * The portal's HTML, rendered on the server with Hono's JSX: every value is escaped by the JSX
 * runtime (a profile or file name is text, never markup), no inline script or style (the
 * Content-Security-Policy allows neither), and the one script is a static file.
 *
 * A page is a shell ({@link Shell}) that carries no data: it is what a browser gets when it
 * navigates, since a navigation carries no `Authorization` header. The script then asks for the
 * page's view (a fragment of `<main>`) with the signed-in person's token and puts it in place.
 */
import { raw } from 'hono/html';
import type { Child, FC } from 'hono/jsx';
import type { JobDetail, JobFileView, JobSummary } from './api-client.ts';
import type { ClosesAnswer } from './closes-types.ts';
import { ClosedPeriods, CloseSetForm } from './closes-view.tsx';
import { formatBytes, type PageContext, type SignInView } from './page.ts';
import type { ShardProgress } from './progress.ts';
import { VerifySetButton } from './verify-view.tsx';
import { describeFile, failureInWords, fileOrder } from './wording.ts';

// Where they lived before page.ts: the other views import them from here.
export { formatBytes, type PageContext, type SignInView } from './page.ts';

const Head: FC<{ ctx: PageContext; title: string }> = ({ ctx, title }) => (
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <title>{title} · pbs-export reports</title>
    <link rel="icon" type="image/svg+xml" href={`${ctx.base}/favicon.svg`} />
    <link rel="stylesheet" href={`${ctx.base}/static/portal.css`} />
    <script src={`${ctx.base}/static/portal.js`} defer />
  </head>
);

/** The banner of the development sign-in: on every page, so nobody takes it for the real one. */
const DevBanner: FC<{ ctx: PageContext }> = ({ ctx }) =>
  ctx.signIn.kind === 'development' ? (
    <p class="dev-banner" role="note">
      Development sign-in: a local server on loopback with demo data. Not for real portfolios.
    </p>
  ) : null;

/** The sign-in settings the script reads from the page (no secret: a public client's id). */
function signInData(signIn: SignInView): Record<string, string> {
  if (signIn.kind === 'development') return { 'data-sign-in': 'development' };
  return {
    'data-sign-in': 'oauth',
    'data-authorize-url': signIn.authorizeUrl,
    'data-token-url': signIn.tokenUrl,
    'data-client-id': signIn.clientId,
    'data-scopes': signIn.scopes.join(' '),
  };
}

const Page: FC<{ ctx: PageContext; title: string; page: string; children?: Child }> = ({
  ctx,
  title,
  page,
  children,
}) => (
  <>
    {raw('<!DOCTYPE html>')}
    <html lang="en">
      <Head ctx={ctx} title={title} />
      <body data-base={ctx.base} data-api={ctx.api} data-page={page} {...signInData(ctx.signIn)}>
        <header class="top">
          <a class="brand" href={ctx.base}>
            pbs-export reports
          </a>
          <nav aria-label="Portal">
            <a href={ctx.base}>Clients</a>
            <a href={`${ctx.base}/practice`}>Practice</a>
            {page === 'view' ? (
              <button type="button" class="link" data-sign-out>
                Sign out
              </button>
            ) : null}
          </nav>
        </header>
        <DevBanner ctx={ctx} />
        {children}
      </body>
    </html>
  </>
);

/** A page whose content is loaded by the script from `view` with the person's token. */
export const Shell: FC<{ ctx: PageContext; title: string; view: string }> = ({ ctx, title, view }) => (
  <Page ctx={ctx} title={title} page="view">
    <main id="main" data-view={view} aria-live="polite" aria-busy="true">
      <h1>{title}</h1>
      <p>Loading…</p>
      <noscript>
        <p>
          This portal needs JavaScript: it keeps your sign-in in this tab only and sends it with each request.
        </p>
      </noscript>
    </main>
  </Page>
);

/** Where the sign-in service sends the person back (the script exchanges the code). */
export const CallbackPage: FC<{ ctx: PageContext }> = ({ ctx }) => (
  <Page ctx={ctx} title="Signing in" page="callback">
    <main id="main" aria-live="polite">
      <h1>Signing in…</h1>
      <p data-status />
    </main>
  </Page>
);

/** The sign-in page: the development form locally, the sign-in service's button when deployed. */
export const SignInPage: FC<{ ctx: PageContext }> = ({ ctx }) => (
  <Page ctx={ctx} title="Sign in" page="sign-in">
    <main id="main">
      {ctx.signIn.kind === 'development' ? (
        <DevSignIn ctx={ctx} profiles={ctx.signIn.profiles} />
      ) : (
        <>
          <h1>Sign in</h1>
          <p>Sign in with the account your firm gave you. You see the clients your account is allowed.</p>
          <p>
            <button type="button" data-oauth-sign-in>
              Sign in
            </button>
          </p>
          <p data-status aria-live="polite" />
        </>
      )}
    </main>
  </Page>
);

const DevSignIn: FC<{ ctx: PageContext; profiles: readonly string[] }> = ({ ctx, profiles }) => (
  <>
    <h1>Development sign-in</h1>
    <p>
      This sign-in exists only on <code>npm run serve</code>: pick the clients (profiles) the token should
      allow, as a claim <code>pbs_profiles</code> of a real sign-in would. The token is signed with a key this
      process made at start and lives in this tab only.
    </p>
    <form data-dev-sign-in action={`${ctx.base}/dev-sign-in`} method="post">
      <fieldset>
        <legend>Clients this sign-in may use</legend>
        {profiles.map((profile) => (
          <label class="choice">
            <input type="checkbox" name="profiles" value={profile} /> {profile}
          </label>
        ))}
      </fieldset>
      <p data-status class="error" aria-live="polite" />
      <button type="submit">Sign in (development)</button>
    </form>
  </>
);

/** A whole page that is an error (an unknown path, a bad profile name). */
export const ErrorPage: FC<{ ctx: PageContext; title: string; message: string }> = ({
  ctx,
  title,
  message,
}) => (
  <Page ctx={ctx} title={title} page="error">
    <main id="main">
      <h1>{title}</h1>
      <p>{message}</p>
      <p>
        <a href={ctx.base}>Back to the clients</a>
      </p>
    </main>
  </Page>
);

/** A view (fragment of `<main>`) that is an error: refused profile, missing client. */
export const ErrorView: FC<{ ctx: PageContext; title: string; message: string }> = ({
  ctx,
  title,
  message,
}) => (
  <section data-title={title}>
    <h1>{title}</h1>
    <p role="alert">{message}</p>
    <p>
      <a href={ctx.base}>Back to the clients</a>
    </p>
  </section>
);

/** `2025-10-31 14:05 UTC`. */
function formatInstant(iso: string): string {
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}

/** Who or what started a job, in words. */
export function startedBy(job: Pick<JobSummary, 'source' | 'requestedBy'>): string {
  if (job.source === 'schedule') return 'monthly schedule';
  return job.requestedBy === undefined ? 'on demand' : `on demand by ${job.requestedBy}`;
}

/** The set's Read me: README.txt beside CSVs, else the workbook (its first sheet is the Read me). */
export function readMeFile(files: readonly JobFileView[]): JobFileView | undefined {
  return (
    files.find((file) => file.name.endsWith('README.txt')) ??
    files.find((file) => file.name.endsWith('.xlsx'))
  );
}

/** Files as a person needs them: the workbook, the Read me, the reports, the checksums last. */
function inReadingOrder(files: readonly JobFileView[]): JobFileView[] {
  return [...files].sort((a, b) => fileOrder(a.name) - fileOrder(b.name) || (a.name < b.name ? -1 : 1));
}

/**
 * A file name that may wrap after its `_`, `-` and `.` (a narrow screen breaks it there, not
 * letter by letter); the text itself is unchanged.
 */
const BreakableName: FC<{ name: string }> = ({ name }) => (
  <>
    {name.split(/(?<=[_.-])/).map((part, index) => (
      <>
        {index > 0 ? <wbr /> : null}
        {part}
      </>
    ))}
  </>
);

/** The base name of a file (sets list names with their folder). */
const baseName = (name: string) => name.split('/').pop() || name;

const DownloadButton: FC<{ jobId: string; file: JobFileView; label?: string }> = ({ jobId, file, label }) => (
  <button type="button" class="download" data-download data-job={jobId} data-file={file.name}>
    {label ?? 'Download'}
    <span class="visually-hidden"> {baseName(file.name)}</span>
  </button>
);

/** "Download all": one zip of the set, the manifest inside (`POST /reports/{jobId}/archive`). */
const DownloadAllButton: FC<{ jobId: string }> = ({ jobId }) => (
  <button type="button" class="download" data-download-all data-job={jobId}>
    Download all (zip)
  </button>
);

const ReadMeLink: FC<{ job: JobDetail }> = ({ job }) => {
  const file = readMeFile(job.files ?? []);
  if (file === undefined) return null;
  const sheet = file.name.endsWith('.xlsx');
  return (
    <DownloadButton
      jobId={job.jobId}
      file={file}
      label={sheet ? 'Read me (first sheet of the workbook)' : 'Read me'}
    />
  );
};

/** `3 of 12 months fetched`: the plan's windows done, in the period's own unit. */
export function windowsDone(progress: ShardProgress): string {
  if (progress.windows === 0) return 'nothing to fetch';
  const unit = progress.unit === 'window' ? 'parts of the period' : `${progress.unit}s`;
  return `${progress.windowsDone} of ${progress.windows} ${progress.windows === 1 ? progress.unit : unit} fetched`;
}

/** A running or queued export with its progress. */
export type RunningJob = JobSummary & { progress?: ShardProgress | null; queuePosition?: number };

/** One client on the Clients view: its latest set and any export running. */
export interface ClientRow {
  profile: string;
  latest?: JobDetail;
  running?: RunningJob;
}

const RunningState: FC<{ job: RunningJob }> = ({ job }) => {
  if (job.state === 'queued') {
    return (
      <span class="state state-queued">
        queued{job.queuePosition !== undefined ? ` (position ${job.queuePosition})` : ''}
      </span>
    );
  }
  const progress = job.progress;
  return (
    <span class="state state-running">
      running
      {progress ? (
        <>
          {': '}
          <progress max={progress.windows} value={progress.windowsDone} aria-hidden="true" />{' '}
          {windowsDone(progress)}
        </>
      ) : (
        ': planning'
      )}
    </span>
  );
};

/** The Clients view: the profiles the person may use. */
export const ClientsView: FC<{ ctx: PageContext; rows: readonly ClientRow[] }> = ({ ctx, rows }) => (
  <section data-title="Clients" {...(rows.some((row) => row.running) ? { 'data-refresh': '3' } : {})}>
    <h1>Clients</h1>
    <p>
      <a href={`${ctx.base}/practice`}>Practice view</a>: every client's months, exported, closed, verified.
    </p>
    {rows.length === 0 ? (
      <p>Your sign-in allows no client yet. Ask your administrator to add you to a client's group.</p>
    ) : (
      <table>
        <caption>The clients your sign-in allows, with their latest report set</caption>
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Latest report set</th>
            <th scope="col">Read me</th>
            <th scope="col">Running export</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              <th scope="row">
                <a href={`${ctx.base}/clients/${encodeURIComponent(row.profile)}`}>{row.profile}</a>
              </th>
              <td>
                {row.latest ? (
                  <a href={`${ctx.base}/clients/${encodeURIComponent(row.profile)}#set-${row.latest.jobId}`}>
                    {row.latest.period}, {startedBy(row.latest)}, {formatInstant(row.latest.updatedAt)}
                  </a>
                ) : (
                  'none yet'
                )}
              </td>
              <td>{row.latest ? <ReadMeLink job={row.latest} /> : '—'}</td>
              <td>
                {row.running ? (
                  <>
                    {row.running.period}: <RunningState job={row.running} />
                  </>
                ) : (
                  'none'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )}
  </section>
);

/** A titled list of exports, one item a job (`#job-{id}`); nothing when there is none. */
function ExportList<Job extends JobSummary>(props: {
  id: string;
  heading: string;
  jobs: readonly Job[];
  item: (job: Job) => Child;
}) {
  if (props.jobs.length === 0) return null;
  return (
    <section aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.heading}</h2>
      <ul>
        {props.jobs.map((job) => (
          <li id={`job-${job.jobId}`}>{props.item(job)}</li>
        ))}
      </ul>
    </section>
  );
}

/**
 * The set of the same period that finished after `job` failed, if any: the failure is then
 * history, listed below the sets without alarm, not above them in red.
 */
export function supersededBy(job: JobSummary, sets: readonly JobDetail[]): JobDetail | undefined {
  return sets.find((set) => set.period === job.period && set.updatedAt > job.updatedAt);
}

/**
 * A failed export: why, in words, with the recorded reason folded away for whoever asks; when a
 * later set of its period succeeded, said so, and its reason not in red.
 */
const FailedExport: FC<{ job: JobSummary; superseded?: JobDetail | undefined }> = ({ job, superseded }) => {
  const failure = failureInWords(job.reason);
  return (
    <>
      <strong>{job.period}</strong> ({startedBy(job)}, failed {formatInstant(job.updatedAt)}):{' '}
      {superseded ? (
        <>
          <span class="muted">{failure.summary}</span> A later set of {job.period} succeeded (
          <a href={`#set-${superseded.jobId}`}>finished {formatInstant(superseded.updatedAt)}</a>).
        </>
      ) : (
        <span class="reason">{failure.summary}</span>
      )}
      {failure.detail !== '' ? (
        <details>
          <summary>Technical detail</summary>
          <code class="detail">{failure.detail}</code>
        </details>
      ) : null}
    </>
  );
};

/** Which page of a client's exports a view shows: the newest, or an older one; and what follows. */
export interface ClientPage {
  /** Whether this is an older page (not the newest). */
  older: boolean;
  /** The cursor of the next older page, if any. */
  next?: string | undefined;
}

/** Links to the newest and to the next older page of a client's exports. */
const PageLinks: FC<{ ctx: PageContext; profile: string; page: ClientPage }> = ({ ctx, profile, page }) => {
  const client = `${ctx.base}/clients/${encodeURIComponent(profile)}`;
  if (!page.older && page.next === undefined) return null;
  return (
    <nav class="pages" aria-label="Pages of report sets">
      {page.older ? <a href={client}>Newest report sets</a> : null}
      {page.next !== undefined ? (
        <a href={`${client}?${new URLSearchParams({ older: page.next }).toString()}`} rel="next">
          Older report sets
        </a>
      ) : null}
    </nav>
  );
};

/** The client view: running, failed and finished exports of one profile, a page at a time. */
export const ClientView: FC<{
  ctx: PageContext;
  profile: string;
  running: readonly RunningJob[];
  failed: readonly JobSummary[];
  sets: readonly JobDetail[];
  page?: ClientPage;
  /** The client's closed periods (`GET /closes`); absent: not shown. */
  closes?: ClosesAnswer;
}> = ({ ctx, profile, running, failed, sets, page = { older: false }, closes }) => (
  <section data-title={profile} {...(running.length > 0 ? { 'data-refresh': '2' } : {})}>
    <h1>
      <span class="visually-hidden">Client </span>
      {profile}
    </h1>
    <p>
      <a class="button" href={`${ctx.base}/clients/${encodeURIComponent(profile)}/request`}>
        Request an export
      </a>
    </p>
    <ExportList
      id="running"
      heading="Running exports"
      jobs={running}
      item={(job) => (
        <>
          {job.period} ({startedBy(job)}, requested {formatInstant(job.createdAt)}):{' '}
          <RunningState job={job} />
        </>
      )}
    />
    <ExportList
      id="failed"
      heading="Failed exports"
      jobs={failed.filter((job) => !supersededBy(job, sets))}
      item={(job) => <FailedExport job={job} />}
    />
    <section aria-labelledby="sets-heading">
      <h2 id="sets-heading">{page.older ? 'Older report sets' : 'Report sets'}</h2>
      {sets.length === 0 ? <p>{page.older ? 'No report set on this page.' : 'No report set yet.'}</p> : null}
      {sets.map((job) => (
        <ReportSet job={job} base={ctx.base}>
          <p>
            <VerifySetButton ctx={ctx} jobId={job.jobId} />
          </p>
          {closes ? <CloseSetForm ctx={ctx} profile={profile} job={job} closes={closes} /> : null}
        </ReportSet>
      ))}
    </section>
    <ExportList
      id="failed-earlier"
      heading="Earlier failed exports"
      jobs={failed.filter((job) => supersededBy(job, sets))}
      item={(job) => <FailedExport job={job} superseded={supersededBy(job, sets)} />}
    />
    {closes ? <ClosedPeriods profile={profile} closes={closes} /> : null}
    <PageLinks ctx={ctx} profile={profile} page={page} />
  </section>
);

const ReportSet: FC<{ job: JobDetail; base: string; children?: Child }> = ({ job, base, children }) => (
  <article id={`set-${job.jobId}`} class="set" aria-labelledby={`set-heading-${job.jobId}`}>
    <h3 id={`set-heading-${job.jobId}`}>
      {job.period}{' '}
      <span class="muted">
        ({startedBy(job)}, finished {formatInstant(job.updatedAt)})
      </span>
    </h3>
    <p>
      <DownloadAllButton jobId={job.jobId} /> <ReadMeLink job={job} />
      {(job.files ?? []).some((file) => file.name.endsWith('_gains_warnings.csv')) ? (
        <>
          {' '}
          <a href={`${base}/sets/${job.jobId}/warnings`}>Warnings and adjustments</a>
        </>
      ) : null}
    </p>
    <table>
      <caption class="visually-hidden">Files of the {job.period} report set</caption>
      <thead>
        <tr>
          <th scope="col">File</th>
          <th scope="col">What it holds</th>
          <th scope="col">Size</th>
          <th scope="col">SHA-256</th>
          <th scope="col">
            <span class="visually-hidden">Download</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {inReadingOrder(job.files ?? []).map((file) => (
          <tr>
            <th scope="row" class="file-name">
              <BreakableName name={baseName(file.name)} />
            </th>
            <td class="file-desc">{describeFile(file.name)}</td>
            <td class="file-size" title={`${file.bytes} bytes`}>
              {formatBytes(file.bytes)}
            </td>
            <td>
              <code class="sha">{file.sha256}</code>
            </td>
            <td>
              <DownloadButton jobId={job.jobId} file={file} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
    {children}
  </article>
);
