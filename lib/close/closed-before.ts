/**
 * The closed period a new period of a profile continues (issue 42, item 3): among the closes in
 * force of the profile, the one whose set's period ends at the instant the new period begins (the
 * close made last, should two such periods be closed, a month and a year), with that set's closing
 * balances as its manifest records them. The export checks its opening balances against them.
 */
import type { ClosedPrevious } from '../export/index.ts';
import { closingBalancesOf, parseManifest, sha256 } from '../proof/index.ts';
import { closesInForce } from './records.ts';
import type { CloseStore } from './store.ts';

/**
 * The closed set of `profile` whose period ends at `periodStart` (ISO), or null when no closed
 * period ends there. Its manifest is read where the close recorded it; one that is gone cannot
 * tell its period and is passed over, one that changed since the close is returned marked so.
 */
export async function closedPeriodBefore(
  store: Pick<CloseStore, 'records' | 'read'>,
  profile: string,
  periodStart: string,
): Promise<ClosedPrevious | null> {
  const startsAt = Date.parse(periodStart);
  const closes = closesInForce(await store.records())
    .filter((close) => close.profile === profile)
    .sort((a, b) => b.at.localeCompare(a.at));
  for (const close of closes) {
    const bytes = await store.read(`${close.prefix}/manifest.json`);
    const manifest = bytes === null ? null : parseManifest(bytes);
    if (bytes === null || manifest === null || Date.parse(manifest.period.end) !== startsAt) continue;
    const changed = sha256(bytes) !== close.manifestSha256;
    return {
      prefix: close.prefix,
      runId: close.runId,
      manifestSha256: close.manifestSha256,
      period: { label: manifest.period.label, start: manifest.period.start, end: manifest.period.end },
      closedAt: close.at,
      closedBy: close.by,
      closing: closingBalancesOf(JSON.parse(bytes.toString('utf8'))),
      ...(changed ? { manifestChanged: true as const } : {}),
    };
  }
  return null;
}
