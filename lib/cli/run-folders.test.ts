import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Manifest } from '../export/publish/index.ts';
import { earlierRunsBeside } from './run-folders.ts';

describe('earlierRunsBeside', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-runs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const manifestOf = (runId: string, location: string) =>
    ({ runId, files: [{ name: 'README.txt', location }] }) as unknown as Manifest;

  it('counts the run folders beside a run that started before it, not later ones, staging folders or files', async () => {
    const period = join(dir, 'reports', 'demo', '2025');
    for (const name of [
      '20261101T090000Z-aaaaaa',
      '20261102T090000Z-bbbbbb',
      '20261107T190000Z-cccccc',
      '20261108T090000Z-dddddd',
      '.staging-20261107T185959Z-eeeeee',
    ]) {
      await mkdir(join(period, name), { recursive: true });
    }
    await writeFile(join(period, 'notes.txt'), 'x');
    const location = join(period, '20261107T190000Z-cccccc', 'README.txt');
    expect(await earlierRunsBeside(manifestOf('20261107T190000Z-cccccc', location))).toBe(2);
  });

  it('counts nothing for a run in S3', async () => {
    const manifest = manifestOf(
      '20261107T190000Z-cccccc',
      's3://b/reports/demo/2025/20261107T190000Z-cccccc/README.txt',
    );
    expect(await earlierRunsBeside(manifest)).toBeUndefined();
  });
});
