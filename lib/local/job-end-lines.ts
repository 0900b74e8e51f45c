/**
 * What `npm run serve` prints as an export ends: one line per job. The notice the finish or fail
 * worker publishes (what subscribers of the deployed topic would get) is that line, with a failed
 * job's reason; a job whose execution ended without one (the state machine never loaded, say)
 * gets the runner's word instead. A close's notice is printed as it comes.
 */
import type { JobRecord } from '../jobs/index.ts';
import type { Notice } from '../workflow/index.ts';

/** The two listeners of {@link startLocalService}'s options that print the lines. */
export interface JobEndLines {
  onNotice(notice: Notice, job?: JobRecord): void;
  onDone(jobId: string, state: 'succeeded' | 'failed'): void;
}

/** Listeners that `write` one line (newline included) per ended job, see the module. */
export function jobEndLines(write: (line: string) => void): JobEndLines {
  /** Jobs whose notice was printed: their end says nothing more. */
  const told = new Set<string>();
  return {
    onNotice(notice, job) {
      const link = /https?:\/\/\S+/.exec(notice.message)?.[0] ?? '';
      const reason = job?.state === 'failed' && job.reason !== undefined ? ` (${job.reason})` : '';
      if (job !== undefined) told.add(job.jobId);
      write(`notice (${notice.subject}): ${link}${reason}\n`);
    },
    onDone(jobId, state) {
      if (told.delete(jobId)) return;
      write(`export ${jobId}: ${state}\n`);
    },
  };
}
