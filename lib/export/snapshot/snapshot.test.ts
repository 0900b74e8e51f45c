import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNdjsonWriter, readNdjsonLineBytes, readNdjsonLines } from './snapshot.ts';

describe('createNdjsonWriter', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-ndjson-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it.each([
    ['gzip (the default)', true],
    ['plain text (compress: false)', false],
  ])('writes %s that another reader reads as the same lines, and reads it back', async (_, compress) => {
    const file = join(dir, 'lines.ndjson');
    const lines = Array.from({ length: 20_000 }, (_, i) =>
      JSON.stringify({ i, text: `é€😀 ${'x'.repeat(i % 50)}` }),
    );
    const writer = createNdjsonWriter(file, { compress, level: 1, bufferedChunks: 1 });
    for (const line of lines) await writer.writeJson(line);
    await writer.close();

    const bytes = await readFile(file);
    // gzip's magic bytes, or none: the file is the NDJSON text itself.
    expect(bytes[0] === 0x1f && bytes[1] === 0x8b).toBe(compress);
    const text = (compress ? gunzipSync(bytes) : bytes).toString('utf8');
    expect(text).toBe(`${lines.join('\n')}\n`);
    const read: string[] = [];
    for await (const line of readNdjsonLines(file)) read.push(line);
    expect(read).toEqual(lines);
  });

  it.each([
    ['gzip, 8 chunks buffered', true, 8],
    ['plain text, 1 chunk buffered', false, 1],
  ])(
    'writes every byte of many chunks, its chunks reused, waiting only when asked to (%s)',
    async (_, compress, bufferedChunks) => {
      const file = join(dir, 'many.ndjson');
      // About 6 MB: two dozen chunks of 256 KiB, each line distinct.
      const lines = Array.from(
        { length: 60_000 },
        (_, i) => `{"i":${i},"t":"${String(i).repeat(20).slice(0, 90)}"}`,
      );
      const writer = createNdjsonWriter(file, { compress, level: 1, bufferedChunks });
      for (const line of lines) {
        const wait = writer.writeJson(line);
        if (wait) await wait;
      }
      await writer.close();

      const bytes = await readFile(file);
      expect((compress ? gunzipSync(bytes) : bytes).toString('utf8')).toBe(`${lines.join('\n')}\n`);
    },
  );

  it.each([
    ['gzip', true],
    ['plain text', false],
  ])('writes %s lines given in pieces, as text or bytes, longer than a chunk too', async (_, compress) => {
    const file = join(dir, 'pieces.ndjson');
    const long = JSON.stringify({ long: 'é'.repeat(200_000) });
    const lines = [
      ['{"a":', '1', '}'],
      ['', `{"b":"${'€'.repeat(90_000)}"}`, ''],
      ['{"kind":"transaction","data":', long, '}'],
      ['{"c":', '"😀"', '}'],
    ];
    const writer = createNdjsonWriter(file, { compress, level: 1, bufferedChunks: 1 });
    for (const [index, [prefix, json, suffix]] of lines.entries()) {
      const body = index % 2 === 0 ? Buffer.from(json as string, 'utf8') : (json as string);
      await writer.writeJson(body, prefix, suffix);
    }
    await writer.close();

    const expected = lines.map((pieces) => pieces.join(''));
    const text = (compress ? gunzipSync(await readFile(file)) : await readFile(file)).toString('utf8');
    expect(text).toBe(`${expected.join('\n')}\n`);
    const read: string[] = [];
    for await (const bytes of readNdjsonLineBytes(file)) read.push(bytes.toString('utf8'));
    expect(read).toEqual(expected);
  });

  it('reads an empty plain file as no lines, and a plain file without a final newline in full', async () => {
    const empty = join(dir, 'empty.ndjson');
    await writeFile(empty, '');
    const none: string[] = [];
    for await (const line of readNdjsonLines(empty)) none.push(line);
    expect(none).toEqual([]);
    const unterminated = join(dir, 'unterminated.ndjson');
    await writeFile(unterminated, '{"a":1}\n{"b":"€"}');
    const read: string[] = [];
    for await (const line of readNdjsonLines(unterminated)) read.push(line);
    expect(read).toEqual(['{"a":1}', '{"b":"€"}']);
  });

  it('reads a line whose character is cut by a read-chunk boundary whole, and each line as its own string', async () => {
    // The reader takes 256 KiB at a time: put the boundary inside a 4-byte emoji, then inside a
    // 3-byte euro sign of a line that spans two more chunks.
    const chunk = 256 * 1024;
    const first = `{"pad":"${'a'.repeat(chunk - 2 - 9)}😀"}`;
    const second = `{"long":"${'€'.repeat(chunk / 3 + 1000)}"}`;
    const third = '{"last":"ü"}';
    const file = join(dir, 'cut.ndjson');
    const bytes = Buffer.from(`${first}\n${second}\n${third}\n`, 'utf8');
    expect(bytes.subarray(chunk - 1, chunk + 2).toString('utf8')).not.toContain('😀');
    await writeFile(file, bytes);
    const read: string[] = [];
    for await (const line of readNdjsonLines(file)) read.push(line);
    expect(read).toEqual([first, second, third]);
    expect(read.map((line) => JSON.parse(line))).toEqual([
      { pad: `${'a'.repeat(chunk - 11)}😀` },
      { long: '€'.repeat(chunk / 3 + 1000) },
      { last: 'ü' },
    ]);
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
