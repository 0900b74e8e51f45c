/** The export tasks wrapped so that one export runs per registered secret (see `lib/jobs/profile-slots.ts`). */
import type { JobStore, ProfileSlots } from '../jobs/index.ts';
import type { Workers } from './workers.ts';

/**
 * The export tasks holding their profile's slot: plan takes it (or throws
 * {@link ProfileBusyError} and waits in the queue), fetch-shard and finish renew it (a task of an
 * export whose slot was released or taken meanwhile throws {@link ProfileBusyError}: that export
 * has ended or lost its slot), finish and fail release it.
 */
export function withProfileSlots(workers: Workers, slots: ProfileSlots, jobs: JobStore): Workers {
  const profileOf = async (jobId: string) => (await jobs.require(jobId)).profile;
  return {
    async plan(input) {
      const job = await jobs.require(input.jobId);
      await slots.acquire(job.profile, input.jobId, job.createdAt);
      return workers.plan(input);
    },
    async fetchShard(input) {
      await slots.renew(await profileOf(input.jobId), input.jobId);
      return workers.fetchShard(input);
    },
    async finish(input) {
      const job = await jobs.require(input.jobId);
      // A finish retried after success has nothing left to do and must not wait for the slot.
      if (job.state !== 'succeeded') await slots.renew(job.profile, input.jobId);
      const output = await workers.finish(input);
      await slots.release(job.profile, input.jobId);
      return output;
    },
    async fail(input) {
      const output = await workers.fail(input);
      const job = await jobs.get(input.jobId);
      if (job !== null) await slots.release(job.profile, input.jobId).catch(() => {});
      return output;
    },
  };
}
