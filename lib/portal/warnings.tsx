/**
 * A set's warnings in the portal: the open ones, each row with "Accept suggestion" (one click,
 * where the data points at a resolution) and a form per kind of adjustment that fits the warning,
 * then "Re-run" the set over the adjustments. Everything goes through the HTTP API with the
 * person's own authorization: the API validates each adjustment with the document's schema
 * (server-side) and attributes it to the signed-in person; its refusal is shown beside the form.
 *
 * Below them the profile's adjustments, each of which can be withdrawn (adjustments-list.tsx).
 *
 * Pages: `/portal/sets/{jobId}/warnings` (shell), its view `/portal/view/sets/{jobId}/warnings`,
 * and the forms' targets `/portal/view/sets/{jobId}/adjustments`, `…/withdraw` and `…/rerun`.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { FC } from 'hono/jsx';
import { proposalFromId } from '../adjustments/index.ts';
import { type AdjustmentsAnswer, AdjustmentsList } from './adjustments-list.tsx';
import { type ApiFetch, apiCaller } from './api-client.ts';
import { ErrorView, type PageContext, Shell } from './views.tsx';

/** A warning as `GET /reports/{jobId}/warnings` answers it. */
interface WarningRow {
  date: string;
  transactionId: string;
  kind: string;
  token: string;
  account: string;
  quantity: string;
  message: string;
  suggestion: { text: string; adjustment: Record<string, unknown> | null } | null;
  resolvedBy: string | null;
}

interface WarningsAnswer {
  jobId: string;
  profile: string;
  adjustmentsVersion: number;
  /** The set's own figures: what a re-run with adjustments changes. */
  figures: { netGain: string; currency: string; adjustments: { version: number } | null } | null;
  open: number;
  warnings: WarningRow[];
}

/** What a form's refusal says, by the row it was sent from. */
interface Refusal {
  row: number;
  form: string;
  field: string | null;
  message: string;
}

const JOB_ID = /^[0-9a-f]{32}$/;

/** The categories the `category` form offers (the schema's). */
const CATEGORIES = ['income', 'staking', 'lending', 'airdrop', 'gift', 'lost', 'fee', 'trade', 'transfer'];

/** Which forms fit a warning kind, besides "Accept suggestion". */
const FORMS: Record<string, readonly string[]> = {
  'unmatched-transfer': ['transfer-pair', 'cost-basis', 'category'],
  'missing-cost-basis': ['cost-basis'],
  'missing-value': ['value', 'spam', 'category'],
  'zero-basis': ['missing-lots', 'opening-lots'],
  'negative-balance': ['missing-lots', 'opening-lots'],
};

const FORM_TITLES: Record<string, string> = {
  'transfer-pair': 'Pair with the other side of a move between own accounts',
  'cost-basis': 'Give the cost basis (from outside the portfolio)',
  category: 'Reclassify the transaction',
  value: 'Set the missing value',
  spam: 'Mark the token as spam',
  'missing-lots': 'Give the lots the disposal used',
  'opening-lots': 'Give the holdings from before the history (opening lots)',
};

/**
 * Registers the warnings pages on the portal `app` (after its bearer check on `/view/*`); `json`:
 * the portal's checks of a form's body (JSON, size), run before each form's target.
 */
export function addWarningsRoutes(
  app: Hono,
  api: ApiFetch,
  ctx: PageContext,
  json: readonly [MiddlewareHandler, MiddlewareHandler],
): void {
  app.get('/sets/:jobId/warnings', (c) => {
    const jobId = c.req.param('jobId');
    if (!JOB_ID.test(jobId)) return noSuchSet(c, ctx);
    return c.html(<Shell ctx={ctx} title="Warnings" view={`${ctx.base}/view/sets/${jobId}/warnings`} />);
  });

  app.get('/view/sets/:jobId/warnings', async (c) => warningsPage(c, api, ctx, c.req.param('jobId')));

  app.post('/view/sets/:jobId/adjustments', json[0], json[1], async (c) => {
    const jobId = c.req.param('jobId');
    const fields = await formOf(c);
    const profile = fields.profile ?? '';
    const row = Number(fields.row ?? '-1');
    const form = fields.form ?? '';
    const body = adjustmentFromForm(fields);
    const call = apiCaller(c, api);
    const answer = await call<{ error?: { field: string | null; message: string } }>(
      `/profiles/${encodeURIComponent(profile)}/adjustments`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'if-match': `"${fields.version ?? ''}"` },
        body: JSON.stringify(body),
      },
    );
    if (answer.status === 201)
      return warningsPage(c, api, ctx, jobId, undefined, 'Stored. Re-run the set to see the figures change.');
    const error = answer.body.error;
    const refusal = { row, form, field: error?.field ?? null, message: error?.message ?? 'refused' };
    return warningsPage(c, api, ctx, jobId, refusal);
  });

  app.post('/view/sets/:jobId/withdraw', json[0], json[1], async (c) => {
    const jobId = c.req.param('jobId');
    const fields = await formOf(c);
    const query = new URLSearchParams({ why: fields.why ?? '' }).toString();
    const answer = await apiCaller(c, api)<{ error?: { message: string } }>(
      `/profiles/${encodeURIComponent(fields.profile ?? '')}/adjustments/${encodeURIComponent(fields.id ?? '')}?${query}`,
      { method: 'DELETE', headers: { 'if-match': `"${fields.version ?? ''}"` } },
    );
    if (answer.status === 200)
      return warningsPage(
        c,
        api,
        ctx,
        jobId,
        undefined,
        `Withdrawn ${fields.id}. Re-run the set to see the figures change.`,
      );
    const message = `Not withdrawn: ${answer.body.error?.message ?? 'refused'}`;
    return warningsPage(c, api, ctx, jobId, { row: -1, form: 'withdraw', field: null, message });
  });

  app.post('/view/sets/:jobId/rerun', json[0], json[1], async (c) => {
    const jobId = c.req.param('jobId');
    const answer = await apiCaller(c, api)<{ jobId?: string; error?: { message: string } }>(
      `/reports/${encodeURIComponent(jobId)}/rerun`,
      { method: 'POST' },
    );
    const fields = await formOf(c);
    if (answer.status === 202 && answer.body.jobId !== undefined) {
      const location = `${ctx.base}/clients/${encodeURIComponent(fields.profile ?? '')}#job-${answer.body.jobId}`;
      return c.html(<p>Re-run requested.</p>, 200, { 'x-portal-location': location });
    }
    const message = answer.body.error?.message ?? 'the re-run was refused';
    return warningsPage(c, api, ctx, jobId, { row: -1, form: 'rerun', field: null, message });
  });
}

async function formOf(c: Context): Promise<Record<string, string>> {
  const body = (await c.req.json().catch(() => null)) as { fields?: Record<string, unknown> } | null;
  const out: Record<string, string> = {};
  for (const [name, values] of Object.entries(body?.fields ?? {})) {
    if (Array.isArray(values) && typeof values[0] === 'string') out[name] = values[0];
  }
  return out;
}

/**
 * The adjustment a form asks for, as the API takes it (without by and at): "Accept suggestion"
 * posts the suggestion's own proposal; the other forms name their kind and fields. Nothing is
 * checked here: the API validates with the document's schema and names the field it refuses.
 */
export function adjustmentFromForm(fields: Record<string, string>): Record<string, unknown> {
  const why = fields.why ?? '';
  if (fields.form === 'accept')
    return proposalFromId(fields.suggestion ?? '', why) ?? { kind: 'unknown', why };
  const given = (name: string) =>
    fields[name] === undefined || fields[name] === '' ? {} : { [name]: fields[name] };
  const lot = () => ({
    token: fields.token,
    ...given('account'),
    quantity: fields.quantity ?? '',
    cost: fields.cost ?? '',
    acquiredAt: instantOf(fields.acquiredAt),
  });
  switch (fields.form) {
    case 'transfer-pair':
      return { kind: 'transfer-pair', outTxId: fields.outTxId ?? '', inTxId: fields.inTxId ?? '', why };
    case 'cost-basis':
      return {
        kind: 'cost-basis',
        txId: fields.txId,
        token: fields.token,
        cost: fields.cost ?? '',
        ...(fields.acquiredAt ? { acquiredAt: instantOf(fields.acquiredAt) } : {}),
        why,
      };
    case 'value':
      return { kind: 'value', txId: fields.txId, token: fields.token, value: fields.value ?? '', why };
    case 'spam':
      return { kind: 'spam', token: fields.token, why };
    case 'category':
      return { kind: 'category', txId: fields.txId, category: fields.category ?? '', why };
    case 'missing-lots':
      return { kind: 'missing-lots', txId: fields.txId, lots: [lot()], why };
    case 'opening-lots':
      return { kind: 'opening-lots', lots: [lot()], why };
    default:
      return { kind: fields.form ?? '', why };
  }
}

/** A date input's day as an instant (midnight UTC); anything else as typed (the API names it). */
function instantOf(value: string | undefined): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(value ?? '') ? `${value}T00:00:00Z` : (value ?? '');
}

async function warningsPage(
  c: Context,
  api: ApiFetch,
  ctx: PageContext,
  jobId: string,
  refusal?: Refusal,
  notice?: string,
) {
  if (!JOB_ID.test(jobId)) return noSuchSet(c, ctx);
  const answer = await apiCaller(
    c,
    api,
  )<WarningsAnswer | { error: { code: string; message: string } }>(`/reports/${jobId}/warnings`);
  const body = answer.body;
  if ('error' in body) {
    if (answer.status === 404) return noSuchSet(c, ctx);
    return c.html(<ErrorView ctx={ctx} title="No warnings" message={body.error.message} />, 409);
  }
  const listed = await apiCaller(
    c,
    api,
  )<AdjustmentsAnswer | { error: unknown }>(`/profiles/${encodeURIComponent(body.profile)}/adjustments`);
  const adjustments = 'error' in listed.body ? undefined : listed.body;
  return c.html(
    <WarningsView
      ctx={ctx}
      data={body}
      {...(adjustments ? { adjustments } : {})}
      {...(refusal ? { refusal } : {})}
      {...(notice ? { notice } : {})}
    />,
    refusal === undefined ? 200 : 400,
  );
}

function noSuchSet(c: Context, ctx: PageContext) {
  return c.html(<ErrorView ctx={ctx} title="No such set" message="There is no such report set." />, 404);
}

/** The view: open warnings with their forms, then the resolved ones, then "Re-run". */
export const WarningsView: FC<{
  ctx: PageContext;
  data: WarningsAnswer;
  /** The profile's adjustments (`GET /profiles/{profile}/adjustments`); absent: not listed. */
  adjustments?: AdjustmentsAnswer;
  refusal?: Refusal;
  notice?: string;
}> = ({ ctx, data, adjustments, refusal, notice }) => {
  const rows = data.warnings.map((w, index) => ({ w, index }));
  const open = rows.filter(({ w }) => w.resolvedBy === null);
  const resolved = rows.filter(({ w }) => w.resolvedBy !== null);
  const action = (what: string) => `${ctx.base}/view/sets/${data.jobId}/${what}`;
  return (
    <section data-title={`Warnings: ${data.profile}`}>
      <h1>Warnings: {data.profile}</h1>
      <p>
        <a href={`${ctx.base}/clients/${encodeURIComponent(data.profile)}#set-${data.jobId}`}>
          Back to the report sets
        </a>
      </p>
      <p>
        {data.open} open of {data.warnings.length}; adjustments version {data.adjustmentsVersion}. Nothing
        changes the figures until the set is re-run.
      </p>
      {data.figures ? (
        <p class="figures">
          Net gain or loss of this set: <strong>{data.figures.netGain}</strong> {data.figures.currency} (
          {data.figures.adjustments === null
            ? 'without adjustments'
            : `with adjustments version ${data.figures.adjustments.version}`}
          ).
        </p>
      ) : null}
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {refusal?.row === -1 ? (
        <p role="alert" class="error">
          {refusal.message}
        </p>
      ) : null}
      <form method="post" action={action('rerun')} data-submit>
        <input type="hidden" name="profile" value={data.profile} />
        <button type="submit">Re-run with the adjustments</button>
      </form>
      <h2 id="open-heading">Open warnings</h2>
      {open.length === 0 ? <p>No open warning.</p> : null}
      {open.map(({ w, index }) => (
        <WarningArticle
          w={w}
          index={index}
          profile={data.profile}
          version={data.adjustmentsVersion}
          action={action('adjustments')}
          refusal={refusal?.row === index ? refusal : undefined}
        />
      ))}
      <h2>Resolved</h2>
      {resolved.length === 0 ? <p>None yet.</p> : null}
      <ul>
        {resolved.map(({ w }) => (
          <li>
            {w.kind} {w.token} <code>{w.transactionId}</code>: resolved by <code>{w.resolvedBy}</code>
          </li>
        ))}
      </ul>
      {adjustments ? (
        <AdjustmentsList profile={data.profile} data={adjustments} action={action('withdraw')} />
      ) : null}
    </section>
  );
};

const WarningArticle: FC<{
  w: WarningRow;
  index: number;
  profile: string;
  version: number;
  action: string;
  refusal: Refusal | undefined;
}> = ({ w, index, profile, version, action, refusal }) => {
  const hidden = (
    <>
      <input type="hidden" name="profile" value={profile} />
      <input type="hidden" name="version" value={String(version)} />
      <input type="hidden" name="row" value={String(index)} />
      <input type="hidden" name="txId" value={w.transactionId} />
      <input type="hidden" name="token" value={w.token} />
    </>
  );
  return (
    <article class="warning" id={`warning-${index}`} aria-labelledby={`warning-heading-${index}`}>
      <h3 id={`warning-heading-${index}`}>
        {w.kind}: {w.quantity} {w.token}
      </h3>
      <p>
        {w.date}, transaction <code>{w.transactionId}</code>, account <code>{w.account}</code>: {w.message}
      </p>
      {refusal !== undefined ? (
        <p role="alert" class="error" id={`refusal-${index}`}>
          Not stored: {refusal.message}
        </p>
      ) : null}
      {w.suggestion !== null ? (
        <form method="post" action={action} data-submit class="suggestion">
          {hidden}
          <input type="hidden" name="form" value="accept" />
          <input type="hidden" name="suggestion" value={String(w.suggestion.adjustment?.id ?? '')} />
          <input type="hidden" name="why" value={w.suggestion.text} />
          <p>Suggested: {w.suggestion.text}</p>
          {w.suggestion.adjustment !== null ? <button type="submit">Accept suggestion</button> : null}
        </form>
      ) : null}
      {(FORMS[w.kind] ?? ['category']).map((form) => (
        <details open={refusal?.form === form}>
          <summary>{FORM_TITLES[form]}</summary>
          <form method="post" action={action} data-submit>
            {hidden}
            <input type="hidden" name="form" value={form} />
            <FormFields form={form} w={w} index={index} />
            <label>
              Why (your words, kept with the adjustment){' '}
              <textarea
                name="why"
                required
                rows={2}
                aria-describedby={refusal?.form === form ? `refusal-${index}` : undefined}
              />
            </label>
            <button type="submit">Store adjustment</button>
          </form>
        </details>
      ))}
    </article>
  );
};

const Field: FC<{ name: string; label: string; value?: string; type?: string; required?: boolean }> = (p) => (
  <label>
    {p.label}{' '}
    <input name={p.name} type={p.type ?? 'text'} value={p.value ?? ''} required={p.required ?? true} />
  </label>
);

const FormFields: FC<{ form: string; w: WarningRow; index: number }> = ({ form, w }) => {
  const out = w.message.includes(' out ');
  switch (form) {
    case 'transfer-pair':
      return (
        <>
          <Field name="outTxId" label="Transfer out (transaction id)" value={out ? w.transactionId : ''} />
          <Field name="inTxId" label="Transfer in (transaction id)" value={out ? '' : w.transactionId} />
        </>
      );
    case 'cost-basis':
      return (
        <>
          <Field name="cost" label={`Cost basis of the ${w.quantity} ${w.token}`} />
          <Field name="acquiredAt" label="Acquired on" type="date" required={false} />
        </>
      );
    case 'value':
      return <Field name="value" label="Value" />;
    case 'category':
      return (
        <label>
          Category{' '}
          <select name="category">
            {CATEGORIES.map((category) => (
              <option value={category}>{category}</option>
            ))}
          </select>
        </label>
      );
    case 'missing-lots':
    case 'opening-lots':
      return (
        <>
          <input type="hidden" name="account" value={w.account} />
          <Field name="quantity" label={`Quantity of ${w.token}`} value={w.quantity} />
          <Field name="cost" label="Total cost" />
          <Field name="acquiredAt" label="Acquired on" type="date" />
        </>
      );
    default:
      return null;
  }
};
