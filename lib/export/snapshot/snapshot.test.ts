import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNdjsonWriter, readNdjsonLines } from './snapshot.ts';

describe('createNdjsonWriter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-ndjson-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes every line in order, across chunk boundaries, lines longer than a chunk and non-ASCII text', async () => {
    const file = join(dir, 'lines.ndjson.gz');
    const lines = [
      ...Array.from({ length: 3_000 }, (_, i) => JSON.stringify({ i, text: `é€😀 ${'x'.repeat(i % 200)}` })),
      JSON.stringify({ huge: 'y'.repeat(700_000) }),
      JSON.stringify({ after: 'the huge line', emoji: '🧾' }),
      ...Array.from({ length: 500 }, (_, i) => JSON.stringify({ tail: i })),
    ];
    const writer = createNdjsonWriter(file);
    for (const line of lines) await writer.writeJson(line);
    await writer.close();

    const read: string[] = [];
    for await (const line of readNdjsonLines(file)) read.push(line);
    expect(read).toEqual(lines);
  });
});
