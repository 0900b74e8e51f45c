import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Writable } from 'node:stream';
import { BroadcastChannel, Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sink } from '../../../../test/support/writers.ts';
import type { TableSource } from '../../../domain/table.ts';
import { createLiveOutputs } from '../live-outputs.ts';
import { XlsxWorkerError } from './errors.ts';
import { writeXlsx } from './xlsx.ts';
import { startBookWorker } from './xlsx-thread.ts';

const fixture = (name: string) => new URL(`../../../../test/fixtures/xlsx-workers/${name}`, import.meta.url);

const notes = (total: number): TableSource => ({
  spec: {
    name: 'transactions',
    title: 'Transactions',
    columns: [{ key: 'note', header: 'Note', kind: 'text' }],
  },
  async *rows() {
    for (let i = 0; i < total; i += 1) yield [`note ${i}`];
  },
});

/** An output that takes each chunk some milliseconds after it was written, as a busy disk would. */
class LaggingWritable extends Writable {
  received = 0;

  constructor() {
    super({ highWaterMark: 1024 });
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void): void {
    setTimeout(() => {
      this.received += chunk.length;
      callback();
    }, 10);
  }
}

/** Resolves when a worker started from `announces.ts` says it has started. */
function workerStarted(): Promise<void> {
  const channel = new BroadcastChannel('xlsx-worker-started');
  return new Promise((resolve) => {
    channel.onmessage = () => {
      channel.close();
      resolve();
    };
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the XLSX worker thread: when it starts and how it ends', () => {
  it('starts as the live outputs of an XLSX export are created, before the workbook has a row', async () => {
    const started = workerStarted();

    const live = createLiveOutputs({
      formats: ['xlsx'],
      csv: {},
      xlsx: { workerEntry: fixture('announces.ts') },
      workDir: '/nonexistent',
    });

    await started;
    // The export fails before its workbook is written: the unused worker is ended with it.
    await live.abort(new Error('the fetch failed'));
  });

  it('ends a worker whose workbook failed by a message, never by terminate()', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const { out } = sink();

    const error = await writeXlsx([notes(10)], out, { workerEntry: fixture('book-fails.ts') }).catch(
      (caught: unknown) => caught,
    );

    expect((error as Error).message).toMatch(/disk on fire/);
    expect(terminate).not.toHaveBeenCalled();
  });

  it('ends a worker whose output died mid-workbook by a message, never by terminate()', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const { out } = sink();
    out.once('data', () => out.destroy(new Error('output died')));

    await expect(writeXlsx([notes(50_000)], out)).rejects.toThrow();

    expect(terminate).not.toHaveBeenCalled();
  });

  it('gives up on a worker that stops answering: the failed workbook rejects, saying the worker was terminated', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const { out } = sink();
    const fetchFailed = new Error('the fetch failed');
    const failing: TableSource = {
      spec: notes(0).spec,
      async *rows() {
        // Two batches, posted without waiting (a stuck worker acknowledges none), then the failure.
        for (let i = 0; i < 600; i += 1) yield [`note ${i}`];
        throw fetchFailed;
      },
    };

    const error = await writeXlsx([failing], out, {
      workerEntry: fixture('stuck.ts'),
      workerEndTimeoutMs: 200,
    }).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(XlsxWorkerError);
    expect((error as Error).message).toMatch(
      /did not end within 200 ms .*the fetch failed.*and was terminated/,
    );
    expect((error as Error).cause).toBe(fetchFailed);
    expect(out.destroyed).toBe(true);
    expect(terminate).toHaveBeenCalledTimes(1);
  });

  it('ends an unused worker that stops answering by terminate(), as a last resort', async () => {
    const terminate = vi.spyOn(Worker.prototype, 'terminate');
    const started = startBookWorker(fixture('stuck.ts'), 200);

    await started?.end();

    expect(terminate).toHaveBeenCalledTimes(1);
  });

  it('finishes a workbook whose last chunks and end reach a slow output together (never waits for a drain that does not come)', async () => {
    // Small enough that every chunk and the end are posted before the first is acknowledged: an
    // ending stream emits no 'drain', so chunks acknowledged on 'drain' were never acknowledged.
    const out = new LaggingWritable();

    const result = await writeXlsx([notes(3000)], out);

    expect(result.sheets[0]?.rows).toBe(3000);
    expect(out.received).toBeGreaterThan(8 * 1024);
  });

  it('starts and ends many workers, used or not, failing or not, and the process ends cleanly', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/xlsx-workers/stress.ts', '8'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });

    const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];

    expect({ code, signal, stderr }).toEqual({ code: 0, signal: null, stderr: '' });
    expect(stdout).toContain('ended 40 workbooks');
  }, 180_000);
});
