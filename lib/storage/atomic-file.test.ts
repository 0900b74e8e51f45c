import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFileExclusive, isAtomicTempName, replaceFileAtomically } from './atomic-file.ts';

const folder = () => mkdtemp(join(tmpdir(), 'atomic-file-'));

describe('createFileExclusive', () => {
  it('creates the file with every byte and leaves no temporary file', async () => {
    const dir = await folder();
    await createFileExclusive(join(dir, 'sub', 'a.json'), '{"a":1}\n');
    expect(await readFile(join(dir, 'sub', 'a.json'), 'utf8')).toBe('{"a":1}\n');
    expect(await readdir(join(dir, 'sub'))).toEqual(['a.json']);
  });

  it('refuses with EEXIST when the name is taken, and keeps the first bytes', async () => {
    const dir = await folder();
    const file = join(dir, 'a.json');
    await writeFile(file, 'first');
    await expect(createFileExclusive(file, 'second')).rejects.toMatchObject({ code: 'EEXIST' });
    expect(await readFile(file, 'utf8')).toBe('first');
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('lets exactly one of several concurrent creators win', async () => {
    const dir = await folder();
    const file = join(dir, 'race.json');
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => createFileExclusive(file, `writer ${i}`)),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(await readdir(dir)).toEqual(['race.json']);
  });
});

describe('replaceFileAtomically', () => {
  it('replaces an existing file whole', async () => {
    const dir = await folder();
    const file = join(dir, 'a.json');
    await writeFile(file, 'old and longer');
    await replaceFileAtomically(file, 'new');
    expect(await readFile(file, 'utf8')).toBe('new');
    expect(await readdir(dir)).toEqual(['a.json']);
  });
});

describe('isAtomicTempName', () => {
  it('tells a temporary name from a record name', () => {
    expect(isAtomicTempName('.adjustments-v2.json.partial-0a1b2c3d4e5f')).toBe(true);
    expect(isAtomicTempName('adjustments-v2.json')).toBe(false);
  });
});
