import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { startS3rver } from '../../test/support/s3.ts';
import { emulateConditionalWrites } from '../../test/support/workflow.ts';
import {
  AdjustmentsFileError,
  AdjustmentsNotFoundError,
  ContradictoryAdjustmentsError,
  StaleAdjustmentsError,
} from './errors.ts';
import { createS3AdjustmentsStore } from './s3-store.ts';
import type { AdjustmentsDocument } from './schema.ts';
import { type AdjustmentsStore, createFileAdjustmentsStore } from './store.ts';
import { sha256Of } from './validate.ts';

const BY = { by: 'ann', at: '2026-11-20T10:00:00Z', why: 'statement' };

function doc(tokens: string[]): AdjustmentsDocument {
  return {
    schema: 'pbs-export/adjustments@1',
    profile: 'acme',
    version: 1,
    adjustments: tokens.map((token, index) => ({ ...BY, id: `s${index + 1}`, kind: 'spam' as const, token })),
  };
}

/** The history behaviour every store has. */
function historyTests(store: () => AdjustmentsStore) {
  it('keeps every version, numbers them, and reads each back with its SHA-256', async () => {
    expect(await store().latest('acme')).toBeNull();
    const first = await store().put('acme', doc(['SCAM']), 0);
    const second = await store().put('acme', doc(['SCAM', 'FAKE']), 1);
    expect([first.document.version, second.document.version]).toEqual([1, 2]);
    const latest = await store().latest('acme');
    expect(latest?.document.adjustments.map((a) => a.id)).toEqual(['s1', 's2']);
    const one = await store().get('acme', 1);
    expect(one.document.adjustments.map((a) => a.id)).toEqual(['s1']);
    expect(one.sha256).toBe(sha256Of(one.bytes));
    expect(one.sha256).toBe(first.sha256);
  });

  it('refuses a put based on a stale version, naming both, and writes nothing', async () => {
    await expect(store().put('acme', doc(['X']), 1)).rejects.toThrow(new StaleAdjustmentsError('acme', 1, 2));
    expect((await store().latest('acme'))?.document.version).toBe(2);
    expect((await store().get('acme', 1)).document.adjustments).toHaveLength(1);
  });

  it('refuses a contradictory document and a version that does not exist', async () => {
    const twice = doc(['SCAM', 'SCAM']);
    await expect(store().put('acme', twice, 2)).rejects.toThrow(ContradictoryAdjustmentsError);
    await expect(store().get('acme', 9)).rejects.toThrow(AdjustmentsNotFoundError);
  });
}

describe('file adjustments store', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-adjustments-store-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  historyTests(() => createFileAdjustmentsStore(dir));

  it('writes one file per version and never rewrites one (two writers on the same version: one wins)', async () => {
    const store = createFileAdjustmentsStore(dir);
    const before = await readFile(join(dir, 'acme', 'adjustments-v2.json'));
    const results = await Promise.allSettled([
      store.put('acme', doc(['A']), 2),
      store.put('acme', doc(['B']), 2),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(
      StaleAdjustmentsError,
    );
    expect(await readFile(join(dir, 'acme', 'adjustments-v2.json'))).toEqual(before);
    expect((await readdir(join(dir, 'acme'))).sort()).toEqual([
      'adjustments-v1.json',
      'adjustments-v2.json',
      'adjustments-v3.json',
    ]);
  });

  it('refuses a profile name that could leave the folder', async () => {
    await expect(createFileAdjustmentsStore(dir).latest('../etc')).rejects.toThrow(/profile/);
  });

  it('skips the empty file a kill left under a version name (writes in place), numbering the next version after it', async () => {
    const store = createFileAdjustmentsStore(dir);
    await store.put('kept', doc(['SCAM']), 0);
    // What `writeFile(…, { flag: 'wx' })` killed between its open and its write left.
    const empty = join(dir, 'kept', 'adjustments-v2.json');
    await writeFile(empty, '');

    expect((await store.latest('kept'))?.document.version).toBe(1);
    await expect(store.put('kept', doc(['SCAM', 'FAKE']), 2)).rejects.toThrow(
      new StaleAdjustmentsError('kept', 2, 1),
    );
    const next = await store.put('kept', doc(['SCAM', 'FAKE']), 1);
    expect(next.document.version).toBe(3);
    expect((await store.latest('kept'))?.sha256).toBe(next.sha256);
    expect(await readFile(empty)).toHaveLength(0);
    expect(await store.emptyVersionFiles('kept')).toEqual([empty]);
    await expect(store.get('kept', 2)).rejects.toThrow(
      new AdjustmentsFileError(
        empty,
        "is empty: a write cut off (a kill or a crash) left it, and it holds no version: the profile's versions skip it; delete it",
      ),
    );
  });

  it('reads past the temporary file a write killed before its version was linked into place', async () => {
    const store = createFileAdjustmentsStore(dir);
    await store.put('linked', doc(['SCAM']), 0);
    await writeFile(join(dir, 'linked', '.adjustments-v2.json.partial-0123456789ab'), '{"schema": "pbs-');
    expect((await store.latest('linked'))?.document.version).toBe(1);
    expect((await store.put('linked', doc(['SCAM', 'FAKE']), 1)).document.version).toBe(2);
    expect(await store.emptyVersionFiles('linked')).toEqual([]);
  });

  it('names a version file that cannot be read and says what to do', async () => {
    const store = createFileAdjustmentsStore(dir);
    await store.put('cut', doc(['SCAM']), 0);
    const cut = join(dir, 'cut', 'adjustments-v2.json');
    await writeFile(cut, '{\n  "schema": "pbs-export/adjustments@1",\n  "prof');
    const refused = store.latest('cut');
    await expect(refused).rejects.toThrow(AdjustmentsFileError);
    await expect(refused).rejects.toThrow(
      `adjustments file ${cut} cannot be read as a version: not JSON text (`,
    );
    await expect(refused).rejects.toThrow(
      `move it out of ${join(dir, 'cut')} (the version before it is then the latest); else restore it from a backup (a run that used it recorded its SHA-256 in its manifest); then run the command again`,
    );
  });
});

describe('S3 adjustments store (s3rver with conditional writes)', () => {
  let server: S3TestServer;
  let store: AdjustmentsStore;
  beforeAll(async () => {
    server = await startS3rver();
    const client = server.createClient();
    emulateConditionalWrites(client, server.client);
    store = createS3AdjustmentsStore({ client, bucket: server.bucket });
  });
  afterAll(async () => {
    await server.close();
  });
  historyTests(() => store);

  it('stores each version as its own object under adjustments/<profile>/', async () => {
    const listed = await server.client.send(
      new ListObjectsV2Command({ Bucket: server.bucket, Prefix: 'adjustments/' }),
    );
    expect((listed.Contents ?? []).map((o) => o.Key).sort()).toEqual([
      'adjustments/acme/adjustments-v1.json',
      'adjustments/acme/adjustments-v2.json',
    ]);
  });

  it('names the object of a version that cannot be read and says what to do', async () => {
    await server.client.send(
      new PutObjectCommand({
        Bucket: server.bucket,
        Key: 'adjustments/other/adjustments-v1.json',
        Body: 'not json',
      }),
    );
    const refused = store.latest('other');
    await expect(refused).rejects.toThrow(AdjustmentsFileError);
    await expect(refused).rejects.toThrow(
      `adjustments file s3://${server.bucket}/adjustments/other/adjustments-v1.json cannot be read as a version: not JSON text (`,
    );
    await expect(refused).rejects.toThrow(
      'restore the version of the object before it (the bucket keeps every version of an object)',
    );
  });
});
