/** The monthly schedule's item processor: export each profile's previous local month once. */
import { DateTime } from 'luxon';
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { DEFAULT_REPORTS, PROFILE_NAME, parseExportRequest } from '../export/index.ts';
import type { ProfileSlots } from './profile-slots.ts';
import {
  type JobObserver,
  type JobRecord,
  jobIdFor,
  type MetricsSink,
  type MonthlyItem,
  type MonthlyItemOutput,
  type ProfileRegistry,
} from './records.ts';
import { lookupProfile } from './registry.ts';
import { type ExecutionStarter, startJob } from './start.ts';
import type { JobStore } from './store.ts';

/** What {@link startMonthlyExport} uses. */
export interface MonthlyDeps {
  registry: ProfileRegistry;
  jobs: JobStore;
  starter: ExecutionStarter;
  now: () => Date;
  /** The per-key queues the new job joins (see `startJob`). */
  slots?: Pick<ProfileSlots, 'enqueue' | 'release'>;
  metrics?: MetricsSink;
  onJob?: JobObserver;
}

const itemSchema = z.object({
  profile: z.string().regex(PROFILE_NAME, 'expected a profile name'),
  scheduledTime: z.iso.datetime({ offset: true }),
  // Validated with the request (the schema of a request's `gains`), so errors name `gains.<field>`.
  gains: z.record(z.string(), z.unknown()).nullable().optional(),
  journal: z.record(z.string(), z.unknown()).nullable().optional(),
});

/**
 * The month before the one `scheduledTime` falls in, read in `timeZone`: `2026-11-01T00:30:00Z`
 * in America/New_York is 2026-10-31 20:30 local, so the previous month is `2026-09`.
 */
export function previousLocalMonth(scheduledTime: string, timeZone: string): string {
  const local = DateTime.fromISO(scheduledTime, { setZone: true }).setZone(timeZone);
  if (!local.isValid) throw new ValidationError('scheduledTime', `cannot be read in ${timeZone}`);
  return local.startOf('month').minus({ months: 1 }).toFormat('yyyy-MM');
}

/** The idempotency key of a profile's scheduled month: one job per (profile, month). */
export function scheduleKey(profile: string, month: string): string {
  return `schedule:${profile}:${month}`;
}

/**
 * Creates the job of the item's profile and previous local month and starts its export, unless
 * that job exists already (a retried or duplicated event): then `created: false`, no start. With
 * the item's `gains` (the deployment config's policies) the export adds the gains report with them.
 */
export async function startMonthlyExport(item: MonthlyItem, deps: MonthlyDeps): Promise<MonthlyItemOutput> {
  const parsed = itemSchema.safeParse(item);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ValidationError(String(issue?.path[0] ?? 'item'), issue?.message ?? 'invalid');
  }
  const { profile, scheduledTime, gains, journal } = parsed.data;
  const registered = lookupProfile(deps.registry, profile);
  const month = previousLocalMonth(scheduledTime, registered.timeZone);
  const request = parseExportRequest({
    profile,
    period: month,
    timeZone: registered.timeZone,
    // The deployment's gains policies add the gains report to the default ones, a journal the journal.
    ...monthlyReports(gains, journal),
  });
  const idempotencyKey = scheduleKey(profile, month);
  const at = deps.now().toISOString();
  const job: JobRecord = {
    jobId: jobIdFor(profile, idempotencyKey),
    profile,
    request,
    state: 'queued',
    source: 'schedule',
    idempotencyKey,
    createdAt: at,
    updatedAt: at,
  };
  deps.onJob?.(job);
  const { created, job: stored } = await startJob(deps, job);
  if (created) deps.metrics?.addMetric('JobsStarted', 'Count', 1);
  return { jobId: stored.jobId, created };
}

/** The reports and options a monthly item adds to the default reports: gains, journal. */
function monthlyReports(
  gains: Record<string, unknown> | null | undefined,
  journal: Record<string, unknown> | null | undefined,
): Record<string, unknown> {
  const hasGains = gains !== null && gains !== undefined;
  const hasJournal = journal !== null && journal !== undefined;
  if (!hasGains && !hasJournal) return {};
  return {
    reports: [...DEFAULT_REPORTS, ...(hasGains ? ['gains'] : []), ...(hasJournal ? ['journal'] : [])],
    ...(hasGains ? { gains } : {}),
    ...(hasJournal ? { journal } : {}),
  };
}
