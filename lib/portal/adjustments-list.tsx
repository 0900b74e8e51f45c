/**
 * The profile's adjustments on a set's warnings page: each one in force with a "Withdraw…" form
 * (folded away; a reason is required, as the API keeps it in the audit trail), and the ones
 * withdrawn before, with who withdrew them, when and why. The form's target is the warnings
 * page's (`/portal/view/sets/{jobId}/withdraw`, warnings.tsx), which calls
 * `DELETE /profiles/{profile}/adjustments/{id}` with the person's own authorization.
 */
import type { FC } from 'hono/jsx';

/** An adjustment as `GET /profiles/{profile}/adjustments` lists it. */
export interface AdjustmentRow {
  id: string;
  kind: string;
  by: string;
  at: string;
  why: string;
}

/** The answer of `GET /profiles/{profile}/adjustments` the list reads. */
export interface AdjustmentsAnswer {
  version: number;
  adjustments: AdjustmentRow[];
  withdrawn: { adjustment: AdjustmentRow; by: string; at: string; why: string }[];
}

const when = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;

/** The list (see the module comment); `action`: the withdrawal form's target. */
export const AdjustmentsList: FC<{ profile: string; data: AdjustmentsAnswer; action: string }> = ({
  profile,
  data,
  action,
}) => (
  <section id="adjustments" aria-labelledby="adjustments-heading">
    <h2 id="adjustments-heading">Adjustments of {profile}</h2>
    {data.adjustments.length === 0 ? <p>No adjustment in force.</p> : null}
    <ul>
      {data.adjustments.map((a) => (
        <li id={`adjustment-${a.id}`}>
          <code>{a.id}</code> ({a.kind}) by {a.by} on {when(a.at)}: {a.why}
          <details class="withdraw">
            <summary>Withdraw…</summary>
            <form method="post" action={action} data-submit>
              <input type="hidden" name="profile" value={profile} />
              <input type="hidden" name="id" value={a.id} />
              <input type="hidden" name="version" value={String(data.version)} />
              <label for={`withdraw-why-${a.id}`}>Why is {a.id} withdrawn?</label>{' '}
              <input id={`withdraw-why-${a.id}`} name="why" type="text" maxlength={2000} required />{' '}
              <button type="submit">Withdraw {a.id}</button>
            </form>
          </details>
        </li>
      ))}
    </ul>
    {data.withdrawn.length > 0 ? (
      <>
        <h3>Withdrawn</h3>
        <ul class="withdrawn">
          {data.withdrawn.map((w) => (
            <li>
              <code>{w.adjustment.id}</code> ({w.adjustment.kind}) withdrawn by {w.by} on {when(w.at)}:{' '}
              {w.why}
            </li>
          ))}
        </ul>
      </>
    ) : null}
  </section>
);
