import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failCommands, type S3TestServer, startS3rver } from '../../test/support/s3.ts';
import { ValidationError } from '../errors.ts';
import { StorageError } from './errors.ts';
import type { ProcessOwner } from './owner.ts';
import type { RepairResult } from './s3-repair.ts';
import { createS3Sink } from './s3-sink.ts';
import type { SinkSet } from './sink.ts';

let s3: S3TestServer;

beforeAll(async () => {
  s3 = await startS3rver();
});

afterAll(async () => {
  await s3.close();
});

/** The run that was killed: pid 201 of host `aaaaaaaa`. */
const KILLED: ProcessOwner = { host: 'aaaaaaaa', pid: 201, isAlive: () => true };

/** The next run: pid 100 of `host`, for which exactly the pids in `alive` run. */
function nextRun(alive: number[], host = 'aaaaaaaa'): ProcessOwner {
  return { host, pid: 100, isAlive: (pid) => alive.includes(pid) };
}

const FILES: [string, string, string][] = [
  ['a.csv', 'a,b\n1,2\n', 'text/csv'],
  ['b.csv', 'c\n3\n', 'text/csv'],
  ['c.xlsx', 'xlsx bytes', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['manifest.json', '{"files":["a.csv","b.csv","c.xlsx"]}\n', 'application/json'],
];

async function writeSet(set: SinkSet, files: [string, string, string][] = FILES): Promise<void> {
  for (const [name, content, contentType] of files) {
    const object = set.create(name, contentType);
    await pipeline(Readable.from([content]), object.stream);
    await object.done();
  }
}

async function listedKeys(prefix: string): Promise<string[]> {
  const page = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key ?? '').sort();
}

async function read(key: string): Promise<{ body: string; contentType: string | undefined }> {
  const response = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return { body: (await response.Body?.transformToString()) ?? '', contentType: response.ContentType };
}

/** Every CopyObject and DeleteObject `client` sends: when it starts and when it ends, in order. */
function recordWrites(client: S3Client): string[] {
  const events: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const name = context.commandName;
      if (name !== 'CopyObjectCommand' && name !== 'DeleteObjectCommand') return next(args);
      const what = `${name === 'CopyObjectCommand' ? 'copy' : 'delete'} ${String((args.input as { Key?: string }).Key)}`;
      events.push(`start ${what}`);
      const result = await next(args);
      events.push(`end ${what}`);
      return result;
    },
    { step: 'initialize', name: 'testRecordWrites' },
  );
  return events;
}

/**
 * Stages `FILES` as set `reports/run-1` of sink prefix `prefix` by `owner`, and commits it with a
 * client that dies after `copies` server-side copies: the later copies fail and, as a process
 * killed there, nothing is cleaned up (no `discard()`).
 */
async function killedWhileCopying(prefix: string, copies: number, owner = KILLED): Promise<void> {
  const client = s3.createClient();
  let sent = 0;
  failCommands(
    client,
    (command) => {
      if (command !== 'CopyObjectCommand') return false;
      sent += 1;
      return sent > copies;
    },
    new Error('killed while copying'),
  );
  const sink = createS3Sink({ client, bucket: s3.bucket, prefix, owner });
  const set = await sink.openSet('reports/run-1');
  await writeSet(set);
  await expect(set.commit()).rejects.toBeInstanceOf(StorageError);
}

/** Opens (and discards) a set through a sink that repairs, as the next CLI run does; returns what it repaired. */
async function runNext(prefix: string, owner: ProcessOwner, client = s3.client): Promise<RepairResult[]> {
  const results: RepairResult[] = [];
  const sink = createS3Sink({
    client,
    bucket: s3.bucket,
    prefix,
    owner,
    repairDeadSets: true,
    onRepair: (result) => results.push(result),
  });
  await (await sink.openSet('reports/next-run')).discard();
  return results;
}

describe('commit markers of S3 sets', () => {
  it('records the set as complete (owner, every key, the manifest last) before its first copy, and removes the marker once in place', async () => {
    const client = s3.createClient();
    let markerAtFirstCopy: unknown;
    client.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'CopyObjectCommand' && markerAtFirstCopy === undefined) {
          markerAtFirstCopy = JSON.parse((await read('marker/_staging/reports/run-1/.commit')).body);
        }
        return next(args);
      },
      { step: 'initialize', name: 'testMarkerAtFirstCopy' },
    );
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'marker', owner: KILLED });
    const set = await sink.openSet('reports/run-1');
    await writeSet(set);

    await set.commit();

    expect(markerAtFirstCopy).toEqual({
      version: 1,
      owner: { host: 'aaaaaaaa', pid: 201 },
      objects: FILES.map(([name, content, contentType]) => ({
        stagingKey: `marker/_staging/reports/run-1/${name}`,
        finalKey: `marker/reports/run-1/${name}`,
        bytes: Buffer.byteLength(content),
        contentType,
      })),
    });
    expect(await listedKeys('marker/_staging/')).toEqual([]);
    expect(await listedKeys('marker/reports/run-1/')).toHaveLength(FILES.length);
  });

  it('refuses .commit as the name of an object of a set', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'marker-name' });
    const set = await sink.openSet('reports/run-1');

    expect(() => set.create('.commit', 'application/json')).toThrow(ValidationError);
    await set.discard();
  });

  it('removes the marker with the staged keys when a failed commit is discarded', async () => {
    const client = s3.createClient();
    failCommands(
      client,
      (command, input) => command === 'CopyObjectCommand' && String(input.Key).endsWith('/manifest.json'),
      new Error('injected CopyObject failure'),
    );
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'marker-discard' });
    const set = await sink.openSet('reports/run-1');
    await writeSet(set);
    await expect(set.commit()).rejects.toBeInstanceOf(StorageError);
    const markerBeforeDiscard = await listedKeys('marker-discard/_staging/reports/run-1/.commit');

    await set.discard();

    expect(markerBeforeDiscard).toEqual(['marker-discard/_staging/reports/run-1/.commit']);
    expect(await listedKeys('marker-discard/')).toEqual([]);
  });
});

describe('repairDeadSets: the next run completes a set killed while copying', () => {
  it('copies every file again, the manifest after every other copy ended, then removes the marker and the staged keys', async () => {
    await killedWhileCopying('dead', 1);
    const afterKill = {
      final: await listedKeys('dead/reports/run-1/'),
      staged: (await listedKeys('dead/_staging/reports/run-1/')).length,
    };
    const client = s3.createClient();
    const writes = recordWrites(client);

    const results = await runNext('dead', nextRun([]), client);

    // The kill left one file at its final name and no manifest: what a reader must not trust.
    expect(afterKill.final).toHaveLength(1);
    expect(afterKill.final).not.toContain('dead/reports/run-1/manifest.json');
    expect(afterKill.staged).toBe(FILES.length + 1);
    expect(results).toEqual([{ completed: [`s3://${s3.bucket}/dead/reports/run-1/`], failed: [] }]);
    for (const [name, content, contentType] of FILES) {
      expect(await read(`dead/reports/run-1/${name}`)).toEqual({ body: content, contentType });
    }
    const manifestCopy = writes.indexOf('start copy dead/reports/run-1/manifest.json');
    const otherCopiesEnded = FILES.slice(0, -1).map(([name]) =>
      writes.indexOf(`end copy dead/reports/run-1/${name}`),
    );
    expect(manifestCopy).toBeGreaterThan(Math.max(...otherCopiesEnded));
    expect(Math.min(...otherCopiesEnded)).toBeGreaterThanOrEqual(0);
    // The marker goes before the staged keys: it never names a staged key that is gone.
    const deletes = writes.filter((event) => event.startsWith('start delete'));
    expect(deletes[0]).toBe('start delete dead/_staging/reports/run-1/.commit');
    expect(await listedKeys('dead/_staging/')).toEqual([]);
  });

  it('completes a set killed before any copy ended, and one killed after every copy but the manifest', async () => {
    await killedWhileCopying('dead-0', 0);
    await killedWhileCopying('dead-3', 3);
    const afterKill = [await listedKeys('dead-0/reports/'), await listedKeys('dead-3/reports/')];

    await runNext('dead-0', nextRun([]));
    await runNext('dead-3', nextRun([]));

    expect(afterKill.map((keys) => keys.length)).toEqual([0, 3]);
    for (const prefix of ['dead-0', 'dead-3']) {
      expect(await listedKeys(`${prefix}/reports/run-1/`)).toEqual(
        FILES.map(([name]) => `${prefix}/reports/run-1/${name}`).sort(),
      );
      expect(await listedKeys(`${prefix}/_staging/`)).toEqual([]);
    }
  });

  it('never touches the set of a live owner', async () => {
    await killedWhileCopying('live', 2);
    const before = { final: await listedKeys('live/reports/'), staged: await listedKeys('live/_staging/') };
    const client = s3.createClient();
    const writes = recordWrites(client);

    const results = await runNext('live', nextRun([201]), client);

    expect(results).toEqual([{ completed: [], failed: [] }]);
    expect(writes.filter((event) => event.includes('run-1'))).toEqual([]);
    expect({ final: await listedKeys('live/reports/'), staged: await listedKeys('live/_staging/') }).toEqual(
      before,
    );
  });

  it("never touches a set of another host (e.g. a Lambda finish's, which its state machine retries)", async () => {
    await killedWhileCopying('other-host', 2);
    const before = await listedKeys('other-host/');

    const results = await runNext('other-host', nextRun([], 'bbbbbbbb'));

    expect(results).toEqual([{ completed: [], failed: [] }]);
    expect(await listedKeys('other-host/')).toEqual(before);
  });

  it('leaves a staged set without a marker (killed before its first copy: nothing at a final key) to the lifecycle rule', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'unmarked', owner: KILLED });
    await writeSet(await sink.openSet('reports/run-1'));
    const before = await listedKeys('unmarked/');

    const results = await runNext('unmarked', nextRun([]));

    expect(results).toEqual([{ completed: [], failed: [] }]);
    expect(before).toEqual(FILES.map(([name]) => `unmarked/_staging/reports/run-1/${name}`).sort());
    expect(await listedKeys('unmarked/')).toEqual(before);
  });

  it('does not repair unless asked (a Lambda finish never judges another process)', async () => {
    await killedWhileCopying('not-asked', 1);
    const before = await listedKeys('not-asked/');
    const sink = createS3Sink({
      client: s3.client,
      bucket: s3.bucket,
      prefix: 'not-asked',
      owner: nextRun([]),
    });

    await (await sink.openSet('reports/next-run')).discard();

    expect(await listedKeys('not-asked/')).toEqual(before);
  });

  it('keeps the marker and never copies the manifest when a staged file is gone (expired)', async () => {
    await killedWhileCopying('expired', 1);
    await s3.client.send(
      new DeleteObjectCommand({ Bucket: s3.bucket, Key: 'expired/_staging/reports/run-1/b.csv' }),
    );

    const [result] = await runNext('expired', nextRun([]));

    expect(result?.completed).toEqual([]);
    expect(result?.failed).toEqual([
      { location: `s3://${s3.bucket}/expired/reports/run-1/`, error: expect.any(StorageError) },
    ]);
    expect(await listedKeys('expired/reports/run-1/manifest.json')).toEqual([]);
    expect(await listedKeys('expired/_staging/reports/run-1/.commit')).toHaveLength(1);
  });

  it('refuses a marker that names keys outside its set, copying nothing', async () => {
    const marker = {
      version: 1,
      owner: { host: 'aaaaaaaa', pid: 201 },
      objects: [
        {
          stagingKey: 'forged/_staging/reports/run-1/a.csv',
          finalKey: 'forged/reports/someone-else/a.csv',
          bytes: 1,
          contentType: 'text/csv',
        },
      ],
    };
    await s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'forged/_staging/reports/run-1/a.csv', Body: 'x' }),
    );
    await s3.client.send(
      new PutObjectCommand({
        Bucket: s3.bucket,
        Key: 'forged/_staging/reports/run-1/.commit',
        Body: JSON.stringify(marker),
      }),
    );

    const [result] = await runNext('forged', nextRun([]));

    expect(result?.failed).toHaveLength(1);
    expect(result?.failed[0]?.error).toBeInstanceOf(StorageError);
    expect(String(result?.failed[0]?.error)).toMatch(/is not a commit marker: .*someone-else/);
    expect(await listedKeys('forged/reports/')).toEqual([]);
  });
});
