/**
 * The worker dying or timing out part-way: a crash inside one shard's fetch, a render aborted
 * mid-workbook (through `runExport`); a shard task crashing, a finish timing out, and worker
 * processes killed with SIGKILL mid-fetch and mid-publish (through the workflow's tasks, retried
 * as the state machine retries them). Each export publishes exactly the service's data, or fails
 * cleanly and the rerun or retry does; nothing that looks finished is left before that.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ExportServiceClient, parseExportRequest } from '../../lib/export/index.ts';
import type { Page, RawTransaction, TransactionQuery } from '../../lib/pbs/model.ts';
import type { Sink, SinkObject } from '../../lib/storage/sink.ts';
import type { ServiceFactory } from '../../lib/workflow/index.ts';
import { NOW, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';
import { listKeys, referenceFor } from './support/fault-harness.ts';
import { runExportMachine } from './support/machine.ts';
import { CHILD_CONFIG_ENV, type ChildConfig } from './support/worker-child.ts';
import { checkSucceededJob, manifestsOf, workersOf } from './support/workflow-runs.ts';

/** The crash a test injects: what a killed or timed-out invocation looks like from inside. */
class WorkerCrash extends Error {
  constructor(what: string) {
    super(`worker stopped: ${what}`);
    this.name = 'WorkerCrash';
  }
}

/**
 * A client that throws `WorkerCrash` after the first page of the `shardCall`-th transaction listing
 * (1-based), the first `times` times that listing is asked for; otherwise the client itself.
 */
function crashingClient(client: ExportServiceClient, shardCall: number, times = 1): ExportServiceClient {
  let calls = 0;
  let crashed = 0;
  return {
    dateBounds: () => client.dateBounds(),
    defiProtocols: () => client.defiProtocols(),
    timeline: (query) => client.timeline(query),
    transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
      calls += 1;
      if (calls !== shardCall || crashed >= times) return client.transactionPages(query);
      crashed += 1;
      return (async function* () {
        for await (const page of client.transactionPages(query)) {
          yield page;
          throw new WorkerCrash(`killed while fetching listing ${shardCall}`);
        }
      })();
    },
  };
}

/** A sink whose workbook stream is destroyed after `bytes` bytes, as when the invocation times out. */
function abortingWorkbook(sink: Sink, bytes: number, crash: Error): Sink {
  const aborting = (name: string, object: SinkObject): SinkObject => {
    if (!name.endsWith('.xlsx')) return object;
    let written = 0;
    const write = object.stream.write.bind(object.stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    object.stream.write = ((chunk: unknown, ...rest: unknown[]) => {
      written += (chunk as { length?: number }).length ?? 0;
      if (written > bytes) {
        object.stream.destroy(crash);
        return false;
      }
      return write(chunk, ...rest);
    }) as typeof object.stream.write;
    return object;
  };
  return {
    root: sink.root,
    list: (prefix) => sink.list(prefix),
    remove: (name) => sink.remove?.(name) ?? Promise.resolve(),
    create: (name, contentType) => aborting(name, sink.create(name, contentType)),
    async openSet(prefix) {
      const set = await sink.openSet(prefix);
      return {
        prefix: set.prefix,
        create: (name, contentType) => aborting(name, set.create(name, contentType)),
        verify: () => set.verify(),
        commit: (options) => set.commit(options),
        discard: () => set.discard(),
      };
    },
  };
}

/** The messages of an error and its causes. */
function messages(error: unknown): string {
  const out: string[] = [];
  for (let e = error; e instanceof Error && out.length < 10; e = e.cause) out.push(e.message);
  return out.join(' <- ');
}

describe('runExport when the worker dies part-way', () => {
  const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] });

  it('fails with the crash inside one shard fetch, leaving no file, and a rerun publishes the data', async () => {
    let crash: unknown;
    const result = await exportUnderFaults({
      request,
      faults: {},
      wrapClient: (client) => crashingClient(client, 6),
      injectedError: (error) => {
        crash = error;
        return error instanceof WorkerCrash;
      },
    });
    recordRun('process: crash inside a shard fetch', result);

    expect(result.problems).toEqual([]);
    expect(crash).toBeInstanceOf(WorkerCrash);
    expect(result.reruns).toBe(1);
  });

  it('removes what it had published when the render is aborted mid-workbook, and a rerun publishes the data', async () => {
    const crash = new WorkerCrash('invocation timed out while writing the workbook');
    const result = await exportUnderFaults({
      request,
      faults: {},
      wrapSink: (sink) => abortingWorkbook(sink, 16 * 1024, crash),
      injectedError: () => true,
    });
    recordRun('process: render aborted mid-workbook', result);

    expect(result.problems).toEqual([]);
    expect(messages(result.error)).toContain(crash.message);
    expect(result.reruns).toBe(1);
  });
});

describe('workflow tasks when the worker dies part-way', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await startWorkflowHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv'] });

  /** The harness's services with each client wrapped by `wrap`. */
  function wrappedServices(wrap: (client: ExportServiceClient) => ExportServiceClient): ServiceFactory {
    const services = h.servicesWith({ timeoutMs: 10_000, logger: { warn: () => {}, debug: () => {} } });
    return async (profile) => {
      const service = await services(profile);
      return { ...service, client: wrap(service.client) };
    };
  }

  it('retries a shard task that crashed mid-fetch and publishes exactly the data', async () => {
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    let shardTasks = 0;
    const workers = workersOf(h, {
      services: wrappedServices((client) => {
        shardTasks += 1;
        // The plan task is the first client; the fourth shard task's client crashes once.
        return shardTasks === 5 ? crashingClient(client, 1) : client;
      }),
    });

    const run = await runExportMachine(workers, job.jobId);
    const check = await checkSucceededJob(h, job, reference);
    recordRun('process: shard task crashed mid-fetch', { ...check, reruns: run.retries });

    expect(check.problems).toEqual([]);
    expect([run.state, run.retries]).toEqual(['succeeded', 1]);
    expect(run.failures[0]).toMatch(/^fetchShard 3: WorkerCrash/);
  });

  it('retries a finish task that timed out while reading the timeline and publishes exactly the data', async () => {
    const withChanges = parseExportRequest({
      profile: 'acme',
      period: '2024',
      formats: ['csv'],
      reports: ['transactions', 'changes'],
      changesSince: '2024-01-01',
    });
    const reference = await referenceFor({ profile: 'acme', request: withChanges });
    const job = await h.queueJob(withChanges);
    let timelines = 0;
    const workers = workersOf(h, {
      services: wrappedServices((client) => ({
        dateBounds: () => client.dateBounds(),
        defiProtocols: () => client.defiProtocols(),
        transactionPages: (query) => client.transactionPages(query),
        timeline(query) {
          timelines += 1;
          if (timelines > 1) return client.timeline(query);
          return (async function* () {
            for await (const item of client.timeline(query)) {
              yield item;
              throw new WorkerCrash('invocation timed out while reading the timeline');
            }
          })();
        },
      })),
    });

    const run = await runExportMachine(workers, job.jobId);
    const check = await checkSucceededJob(h, job, reference);
    recordRun('process: finish timed out mid-assembly', { ...check, reruns: run.retries });

    expect(check.problems).toEqual([]);
    expect([run.state, run.retries]).toEqual(['succeeded', 1]);
    expect(run.failures[0]).toMatch(/^finish: WorkerCrash/);
  });

  /** Runs a task in a child process until it hangs where `config.hangOn` says, then SIGKILLs it. */
  async function killChildMidTask(
    config: Omit<ChildConfig, 's3Endpoint' | 'bucket' | 'baseUrl' | 'registry' | 'credentials' | 'now'>,
  ) {
    const acme = h.simulator.profiles.find((p) => p.name === 'acme');
    if (!acme) throw new Error('no acme profile');
    const full: ChildConfig = {
      ...config,
      s3Endpoint: h.s3.endpoint,
      bucket: h.bucket,
      baseUrl: h.simulator.url,
      registry: h.registry,
      credentials: { apiKey: acme.apiKey, apiSecret: acme.apiSecret, profileGuid: acme.profileGuid },
      now: NOW.toISOString(),
    };
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'support', 'worker-child.ts')],
      {
        env: { ...process.env, [CHILD_CONFIG_ENV]: JSON.stringify(full) },
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      },
    );
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
    });
    const exited = once(child, 'exit');
    const message = await new Promise<Record<string, unknown>>((resolve, reject) => {
      child.once('message', (m) => resolve(m as Record<string, unknown>));
      void exited.then(() => reject(new Error(`the worker exited before hanging: ${stderr.slice(0, 500)}`)));
    });
    child.kill('SIGKILL');
    const [, signal] = await exited;
    return { message, signal };
  }

  it('leaves no manifest when the finish process is killed mid-publish, and the retried finish publishes the data once', async () => {
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    const workers = workersOf(h);
    const plan = await workers.plan({ jobId: job.jobId });
    for (const shard of plan.shards) await workers.fetchShard({ jobId: job.jobId, shard });

    const killed = await killChildMidTask({ jobId: job.jobId, task: 'finish', hangOn: 'report-upload' });
    const manifestsAfterKill = await manifestsOf(h, job);
    const stateAfterKill = (await h.jobs.require(job.jobId)).state;
    await workers.finish({ jobId: job.jobId });
    const check = await checkSucceededJob(h, job, reference);
    recordRun('process: finish killed mid-publish (SIGKILL)', { ...check, reruns: 1 });

    expect(killed).toMatchObject({
      message: { hanging: expect.stringMatching(/^_staging\/reports\//) },
      signal: 'SIGKILL',
    });
    expect([manifestsAfterKill, stateAfterKill]).toEqual([[], 'running']);
    expect(check.problems).toEqual([]);
  });

  it('leaves no manifest when the finish process is killed while copying the staged set into place, and the retried finish publishes the data once', async () => {
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    const workers = workersOf(h);
    const plan = await workers.plan({ jobId: job.jobId });
    for (const shard of plan.shards) await workers.fetchShard({ jobId: job.jobId, shard });

    const killed = await killChildMidTask({ jobId: job.jobId, task: 'finish', hangOn: 'report-copy' });
    const manifestsAfterKill = await manifestsOf(h, job);
    await workers.finish({ jobId: job.jobId });
    const check = await checkSucceededJob(h, job, reference);
    recordRun('process: finish killed while copying into place (SIGKILL)', { ...check, reruns: 1 });

    expect(killed).toMatchObject({
      message: { hanging: expect.stringMatching(/^reports\//) },
      signal: 'SIGKILL',
    });
    // Some files may be in place, never the manifest: the set does not look finished.
    expect(manifestsAfterKill).toEqual([]);
    expect(check.problems).toEqual([]);
  });

  it('leaves no part when a shard process is killed mid-fetch, and the retried shard publishes the data', async () => {
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    const workers = workersOf(h);
    const plan = await workers.plan({ jobId: job.jobId });

    const killed = await killChildMidTask({
      jobId: job.jobId,
      task: 'fetchShard',
      shard: 2,
      hangOn: 'second-page',
      pageSize: 4,
    });
    const partsAfterKill = await listKeys(h.s3.client, h.bucket, `work/${job.jobId}/parts/`);
    for (const shard of plan.shards) await workers.fetchShard({ jobId: job.jobId, shard });
    await workers.finish({ jobId: job.jobId });
    const check = await checkSucceededJob(h, job, reference);
    recordRun('process: shard killed mid-fetch (SIGKILL)', { ...check, reruns: 1 });

    expect(killed).toMatchObject({ message: { hanging: 'page 2' }, signal: 'SIGKILL' });
    expect(partsAfterKill).toEqual([]);
    expect(check.problems).toEqual([]);
  });
});
