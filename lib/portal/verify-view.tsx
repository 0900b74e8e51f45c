/**
 * A set's verification in the portal: the "Verify this set" button (the script loads the verdict
 * below it on a click, never with the page) and the verdict of
 * `GET /reports/{jobId}/verification` in words, one ✓ or ✗ line per check, per set.
 */
import type { FC } from 'hono/jsx';
import type { PageContext } from './page.ts';

/** The verdict as `GET /reports/{jobId}/verification` answers it. */
export interface VerdictAnswer {
  holds: boolean;
  sets: { prefix: string; holds: boolean; findings: { holds: boolean; text: string }[] }[];
}

/** The verdict in words: the whole first, then each set with a ✓ or ✗ line per check. */
export const VerdictView: FC<{ verdict: VerdictAnswer }> = ({ verdict }) => (
  <div class={verdict.holds ? 'verdict holds' : 'verdict fails'} data-verdict-result>
    <p>
      <strong>
        {verdict.holds
          ? '✓ Verified: every file matches its manifest, and every check holds.'
          : '✗ Not verified: a check does not hold (marked ✗ below).'}
      </strong>
    </p>
    {verdict.sets.map((set) => (
      <div class="verdict-set">
        <p>
          {set.holds ? '✓ holds' : '✗ does not hold'}: <code>{set.prefix}</code>
        </p>
        <ul>
          {set.findings.map((finding) => (
            <li class={finding.holds ? 'holds' : 'fails'}>
              {finding.holds ? '✓ ' : '✗ '}
              {finding.text}
            </li>
          ))}
        </ul>
      </div>
    ))}
  </div>
);

/** "Verify this set": the script loads the verdict into the place below the button on a click. */
export const VerifySetButton: FC<{ ctx: PageContext; jobId: string; label?: string }> = ({
  ctx,
  jobId,
  label = 'Verify this set',
}) => (
  <span class="verify">
    <button
      type="button"
      class="secondary"
      data-verify={`${ctx.base}/view/sets/${encodeURIComponent(jobId)}/verification`}
      aria-controls={`verdict-${jobId}`}
    >
      {label}
    </button>
    <span id={`verdict-${jobId}`} class="verdict-place" aria-live="polite" data-verdict />
  </span>
);
