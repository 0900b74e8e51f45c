import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StorageError } from '../../storage/errors.ts';
import { createLocalSink } from '../../storage/local-sink.ts';
import type { Sink, StoredObject } from '../../storage/sink.ts';
import type { RenderedReports, ReportSetDescription } from '../report/index.ts';
import { publishReports } from './publish.ts';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pbs-publish-'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const description: ReportSetDescription = {
  generator: { name: 'pbs-export', version: 'test' },
  runId: 'run-1',
  createdAt: '2026-11-26T10:00:00.000Z',
  request: {},
  period: { label: '2025', start: '2025-01-01', end: '2026-01-01', timeZone: 'UTC' },
  apiBase: 'http://127.0.0.1',
  windows: [],
  shards: [],
  counts: {},
};

/** Two rendered CSV files in a scratch folder. */
async function rendered(): Promise<RenderedReports> {
  const files = [];
  for (const name of ['acme_2025_transactions.csv', 'acme_2025_summary.csv']) {
    const file = join(root, name);
    await writeFile(file, `${name}\nrow\n`);
    files.push({ name, file, contentType: 'text/csv', rows: 1 });
  }
  return { files, description };
}

/** `sink`, recording the name of every object a set creates. */
function recording(sink: Sink): { sink: Sink; created: string[] } {
  const created: string[] = [];
  return {
    created,
    sink: {
      ...sink,
      async openSet(prefix) {
        const set = await sink.openSet(prefix);
        return {
          ...set,
          prefix: set.prefix,
          create(name, contentType) {
            created.push(name);
            return set.create(name, contentType);
          },
        };
      },
    },
  };
}

/** The staging folder beside the run's final folder. */
function staging(out: string): string {
  const name = readdirSync(join(out, 'reports')).find((entry) => entry.includes('.staging-'));
  if (name === undefined) throw new Error('no staging folder');
  return join(out, 'reports', name);
}

/**
 * Publishes to a folder, doing `tamper` once the last report file is stored (synchronously, so it
 * is done before the publishing goes on, as another process would be).
 */
async function publishTampered(tamper: (out: string, file: StoredObject) => void) {
  const out = join(root, 'out');
  const { sink, created } = recording(createLocalSink(out));
  const reports = await rendered();
  const last = reports.files.at(-1)?.name;
  const error = await publishReports(reports, {
    sink,
    prefix: 'reports/run-1',
    now: () => new Date('2026-11-26T10:00:00.000Z'),
    onPublished: (file) => {
      if (file.name === last) tamper(out, file);
    },
  }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { error, created, left: await readdir(join(out, 'reports'), { recursive: true }) };
}

describe('publishReports to a folder whose staged files are not what it wrote', () => {
  it('writes no manifest and publishes nothing when the staging folder is removed before the manifest', async () => {
    const { error, created, left } = await publishTampered((out) => {
      rmSync(staging(out), { recursive: true });
    });

    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/staging folder was removed/);
    expect(created).not.toContain('manifest.json');
    expect(left).toEqual([]);
  });

  it('writes no manifest and publishes nothing when a stored file changed before the manifest', async () => {
    const { error, created, left } = await publishTampered((out) => {
      writeFileSync(join(staging(out), 'acme_2025_transactions.csv'), 'other content\n');
    });

    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/"acme_2025_transactions\.csv" has/);
    expect(created).not.toContain('manifest.json');
    expect(left).toEqual([]);
  });
});
