/** The export tasks wrapped so that one export runs per registered secret (see `lib/jobs/profile-slots.ts`). */
import type { JobStore, ProfileSlots } from '../jobs/index.ts';
import type { FailTask, FetchShardTask, FinishTask, PlanTask } from './tasks.ts';
import type { Workers } from './workers.ts';

/** The profile slots and the jobs they are taken for. */
export interface SlotDeps {
  slots: ProfileSlots;
  jobs: JobStore;
}

/** Plan takes its profile's slot (or throws {@link ProfileBusyError} and waits in the queue). */
export function planHoldingSlot(plan: PlanTask, { slots, jobs }: SlotDeps): PlanTask {
  return async (input) => {
    const job = await jobs.require(input.jobId);
    await slots.acquire(job.profile, input.jobId, job.createdAt);
    return plan(input);
  };
}

/**
 * Fetch-shard renews the slot: a task of an export whose slot was released or taken meanwhile
 * throws {@link ProfileBusyError} (that export has ended or lost its slot).
 */
export function fetchShardHoldingSlot(fetchShard: FetchShardTask, { slots, jobs }: SlotDeps): FetchShardTask {
  return async (input) => {
    await slots.renew((await jobs.require(input.jobId)).profile, input.jobId);
    return fetchShard(input);
  };
}

/** Finish renews the slot (as fetch-shard does), then releases it. */
export function finishHoldingSlot(finish: FinishTask, { slots, jobs }: SlotDeps): FinishTask {
  return async (input) => {
    const job = await jobs.require(input.jobId);
    // A finish retried after success has nothing left to do and must not wait for the slot.
    if (job.state !== 'succeeded') await slots.renew(job.profile, input.jobId);
    const output = await finish(input);
    await slots.release(job.profile, input.jobId);
    return output;
  };
}

/** Fail releases the slot. */
export function failReleasingSlot(fail: FailTask, { slots, jobs }: SlotDeps): FailTask {
  return async (input) => {
    const output = await fail(input);
    const job = await jobs.get(input.jobId);
    if (job !== null) await slots.release(job.profile, input.jobId).catch(() => {});
    return output;
  };
}

/**
 * The export tasks holding their profile's slot: plan takes it, fetch-shard and finish renew it,
 * finish and fail release it.
 */
export function withProfileSlots(workers: Workers, slots: ProfileSlots, jobs: JobStore): Workers {
  const deps = { slots, jobs };
  return {
    plan: planHoldingSlot(workers.plan, deps),
    fetchShard: fetchShardHoldingSlot(workers.fetchShard, deps),
    finish: finishHoldingSlot(workers.finish, deps),
    fail: failReleasingSlot(workers.fail, deps),
  };
}
