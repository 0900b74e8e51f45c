/**
 * Randomised fault schedules. Each seed draws, from a seeded generator, which service faults are
 * on and at what rates (429 with Retry-After, 5xx, resets, truncated and malformed bodies, stalls,
 * pages that shift, wrong totals), the page size, the windows, the period and the concurrency;
 * the simulator's own seed (data and fault schedule) is the same seed. Every run must publish
 * exactly the service's data, or fail cleanly and a rerun must. A few seeds go through the
 * workflow's tasks with S3 commands failing at random too. Seeds: `PBS_FAULT_RUNS` (default 20)
 * from `PBS_FAULT_SEED` (default 1); a failure names its seed, so it can be replayed alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportRequest, parseExportRequest } from '../../lib/export/plan/index.ts';
import { createJobStore } from '../../lib/jobs/index.ts';
import { profilesWithCounts } from '../../lib/simulator/index.ts';
import { Rng } from '../../lib/simulator/random.ts';
import type { FaultOptions } from '../../lib/simulator/types.ts';
import { emulateConditionalWrites, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';
import { injectS3Faults, referenceFor } from './support/fault-harness.ts';
import { runExportMachine } from './support/machine.ts';
import { checkFailedJob, checkSucceededJob, workersOf } from './support/workflow-runs.ts';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? '');
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const RUNS = envInt('PBS_FAULT_RUNS', 20);
const FIRST_SEED = envInt('PBS_FAULT_SEED', 1);
const SEEDS = Array.from({ length: RUNS }, (_, k) => FIRST_SEED + k);
/** acme with 1,200 transactions (2023–2025): several pages per window even with weekly windows. */
const DENSE = profilesWithCounts({ acme: 1_200 });
const WORKFLOW_SEEDS = SEEDS.slice(0, Math.max(2, Math.ceil(RUNS / 4)));

/** A rate in [0, max) with probability 0.6, else 0 (that fault is off for the seed). */
function rateOf(rng: Rng, max: number): number {
  return rng.chance(0.6) ? Math.round(rng.next() * max * 1000) / 1000 : 0;
}

/** The service faults of a seed. */
function serviceFaults(rng: Rng): FaultOptions {
  return {
    rateLimited: { rate: rateOf(rng, 0.15), retryAfterSeconds: rng.int(0, 3) },
    serverError: { rate: rateOf(rng, 0.15) },
    connectionReset: { rate: rateOf(rng, 0.08) },
    truncatedBody: { rate: rateOf(rng, 0.08) },
    malformedBody: { rate: rateOf(rng, 0.08) },
    stalledBody: { rate: rateOf(rng, 0.04), stallMs: 2_000 },
    pageShift: { rate: rateOf(rng, 0.1), maxItems: rng.int(1, 3), adjustTotal: rng.chance(0.5) },
    wrongTotal: { rate: rateOf(rng, 0.08), maxDelta: rng.int(1, 3) },
  };
}

/** Everything a seed decides for a `runExport` run. */
function scheduleOf(seed: number) {
  const rng = new Rng(Math.imul(seed, 0x9e3779b1) ^ 0x51ed);
  const faults = serviceFaults(rng);
  const period = rng.pick<ExportRequest['period'] | string>([
    '2024',
    '2023-10',
    { from: '2025-01-01', to: '2025-06-30' },
    { from: '2023-11-15', to: '2024-02-10' },
  ]);
  const request = parseExportRequest({
    profile: 'acme',
    period,
    window: rng.pick(['month', 'week']),
    timeZone: rng.pick(['UTC', 'Europe/Berlin', 'America/New_York']),
    formats: ['csv'],
  });
  return {
    faults,
    request,
    pageSize: rng.int(3, 10),
    concurrency: rng.int(1, 4),
    maxAttempts: rng.int(3, 6),
  };
}

describe('runExport under seeded random fault schedules', () => {
  it.each(SEEDS)(
    'seed %i: publishes exactly the service data, or fails cleanly and a rerun does',
    async (seed) => {
      const schedule = scheduleOf(seed);
      const result = await exportUnderFaults({
        seed,
        profiles: DENSE,
        request: schedule.request,
        pageSize: schedule.pageSize,
        faults: schedule.faults,
        rerunFaults: schedule.faults,
        maxReruns: 3,
        // Stalls last 2 s: a 1 s timeout still cuts them, and a busy machine cuts no healthy request.
        client: { timeoutMs: 1_000, retry: { maxAttempts: schedule.maxAttempts } },
        deps: { concurrency: schedule.concurrency },
      });
      recordRun('random schedules: runExport', result);
      const context = `seed ${seed}: ${JSON.stringify({ ...schedule, faults: result.faultKinds })}`;

      expect(result.problems, context).toEqual([]);
      expect(result.dataLost, context).toBe(false);
    },
  );
});

describe('workflow jobs under seeded random service and S3 faults', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await startWorkflowHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(WORKFLOW_SEEDS)(
    'seed %i: a job publishes exactly the service data once, or fails cleanly and a new job does',
    async (seed) => {
      const rng = new Rng(Math.imul(seed, 0x85ebca6b) ^ 0xf00d);
      const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] });
      const reference = await referenceFor({ profile: 'acme', request });
      const failRate = rng.next() * 0.08;
      const client = h.s3.createClient();
      emulateConditionalWrites(client, h.s3.client);
      const s3Faults = injectS3Faults(client, {
        when: (name) => name !== 'HeadObjectCommand' && rng.chance(failRate),
        times: rng.int(1, 4),
        phase: rng.chance(0.3) ? 'after' : 'before',
      });
      // A timeout below the 2 s stalls for the faulty job (the new job keeps workersOf's generous one).
      const workers = workersOf(h, {
        s3: client,
        jobs: createJobStore({ client, bucket: h.bucket }),
        services: h.servicesWith({ timeoutMs: 1_000, logger: { warn: () => {}, debug: () => {} } }),
      });
      const faults = serviceFaults(rng);
      const context = `seed ${seed}: ${JSON.stringify({ failRate, faults })}`;
      const problems: string[] = [];
      let dataLost = false;
      let reruns = 0;

      h.simulator.setFaults(faults);
      try {
        const job = await h.queueJob(request);
        const run = await runExportMachine(workers, job.jobId);
        if (run.state === 'succeeded') {
          const check = await checkSucceededJob(h, job, reference);
          problems.push(...check.problems);
          dataLost = check.dataLost;
        } else {
          problems.push(...(await checkFailedJob(h, job)).map((p) => `failed job: ${p}`));
          h.simulator.setFaults({});
          reruns = 1;
          const again = await h.queueJob(request);
          const rerun = await runExportMachine(workersOf(h), again.jobId);
          const check = await checkSucceededJob(h, again, reference);
          problems.push(...check.problems.map((p) => `new job: ${p}`));
          dataLost = check.dataLost;
          if (rerun.state !== 'succeeded')
            problems.push(`new job ${rerun.state}: ${rerun.failures.join('; ')}`);
        }
        reruns += run.retries;
      } finally {
        h.simulator.setFaults({});
      }
      recordRun('random schedules: workflow + S3', { problems, dataLost, reruns });

      expect(problems, `${context}; S3 failures injected: ${s3Faults.fired}`).toEqual([]);
    },
  );
});
