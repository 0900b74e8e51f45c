import { describe, expect, it } from 'vitest';
import { PostedOutput } from './xlsx-output.ts';

type Posted = { type: 'chunk'; data: Uint8Array } | { type: 'end' };

/** A PostedOutput over a list of what it posted, with a window of `window` bytes. */
function output(window: number) {
  const posted: Posted[] = [];
  return { posted, out: new PostedOutput((message) => posted.push(message), window) };
}

/** Resolves once `out` has taken in every write so far (none waits in its own buffer). */
const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('PostedOutput (the worker end of the workbook output)', () => {
  it('posts chunks before the first is acknowledged, up to the window', async () => {
    const { posted, out } = output(100);

    for (let i = 0; i < 5; i += 1) out.write(Buffer.alloc(30, i));
    await settled();

    // 4 × 30 bytes reach the window: the fifth chunk waits in the stream's buffer.
    expect(posted.map((message) => (message.type === 'chunk' ? message.data.length : -1))).toEqual([
      30, 30, 30, 30,
    ]);
    expect(out.unacknowledgedBytes).toBe(120);
  });

  it('sends what waited, in one message, once acknowledgements bring it under the window', async () => {
    const { posted, out } = output(100);
    for (let i = 0; i < 6; i += 1) out.write(Buffer.alloc(30, i));
    await settled();

    out.written();
    await settled();

    expect(posted.length).toBe(5);
    const last = posted[4] as { type: 'chunk'; data: Uint8Array };
    expect([...last.data]).toEqual([...Buffer.alloc(30, 4), ...Buffer.alloc(30, 5)]);
  });

  it('finishes only once the end is acknowledged after every chunk', async () => {
    const { posted, out } = output(100);
    let finished = false;
    out.on('finish', () => {
      finished = true;
    });

    out.end(Buffer.from('last'));
    await settled();
    expect(posted.map((message) => message.type)).toEqual(['chunk', 'end']);
    out.written();
    await settled();
    expect(finished).toBe(false);

    out.written();
    await settled();
    expect(finished).toBe(true);
  });
});
