import { describe, expect, it } from 'vitest';
import type { Row } from '../../domain/table.ts';
import { createRowChannel } from './row-channel.ts';

const spec = { name: 't', title: 'T', columns: [{ key: 'a', header: 'A', kind: 'text' as const }] };

async function readAll(rows: AsyncIterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('createRowChannel', () => {
  it('gives the reader every pushed row in push order, then ends', async () => {
    const channel = createRowChannel(spec, 4);
    const reading = readAll(channel.rows());
    for (let i = 0; i < 10; i += 1) await channel.push([String(i)]);
    channel.end();
    expect(await reading).toEqual([...Array(10).keys()].map((i) => [String(i)]));
  });

  it('pauses the producer once highWater rows wait, and resumes it when the reader catches up', async () => {
    const channel = createRowChannel(spec, 4);
    const pauses = [0, 1, 2, 3].map((i) => channel.push([String(i)]));
    expect(pauses.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(pauses[3]).toBeInstanceOf(Promise);
    let resumed = false;
    void pauses[3]?.then(() => {
      resumed = true;
    });
    const iterator = channel.rows()[Symbol.asyncIterator]();
    await iterator.next();
    await Promise.resolve();
    expect(resumed).toBe(false);
    await iterator.next();
    await pauses[3];
    expect(resumed).toBe(true);
  });

  it('throws the failure at the next read, resumes a paused producer and drops later rows', async () => {
    const channel = createRowChannel(spec, 2);
    channel.push(['a']);
    const paused = channel.push(['b']);
    channel.fail(new Error('columns changed'));
    await paused;
    expect(channel.push(['c'])).toBeUndefined();
    await expect(readAll(channel.rows())).rejects.toThrow('columns changed');
  });

  it('delivers every row, in order, to a reader that trails the producer across many pauses', async () => {
    const channel = createRowChannel(spec, 8);
    const iterator = channel.rows()[Symbol.asyncIterator]();
    let read = 0;
    for (let i = 0; i < 1000; i += 1) {
      const pause = channel.push([String(i)]);
      if (pause) {
        while (read < i - 3) {
          const next = await iterator.next();
          expect(next.value).toEqual([String(read)]);
          read += 1;
        }
        await pause;
      }
    }
    channel.end();
    while (!(await iterator.next()).done) read += 1;
    expect(read).toBe(1000);
  });

  it('can be read once only', () => {
    const channel = createRowChannel(spec);
    channel.rows();
    expect(() => channel.rows()).toThrow(/read once/);
  });
});
