/** The closing commands name the flag the user typed when its value is wrong. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-close-flags-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(...argv: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(argv, {
    stdout: { write: () => true },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    now: () => new Date('2025-11-03T09:00:00Z'),
  });
  return { code, stderr };
}

describe('close and reopen with a wrong value', () => {
  it('close --period 2025-13: exit 2 naming --period', async () => {
    const { code, stderr } = await cli(
      'close',
      '--profile',
      'demo',
      '--period',
      '2025-13',
      '--run',
      '20251103T091500Z-3f9a1c',
      '--out',
      dir,
    );

    expect({ code, first: stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: expect.stringMatching(/^error: --period: "2025-13" is not a month/),
    });
  });

  it('reopen --period foo: exit 2 naming --period', async () => {
    const { code, stderr } = await cli(
      'reopen',
      '--profile',
      'demo',
      '--period',
      'foo',
      '--reason',
      'late invoice',
      '--out',
      dir,
    );

    expect({ code, first: stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: expect.stringMatching(/^error: --period: "foo" is not a month/),
    });
  });

  it('close --run x: exit 2 naming --run', async () => {
    const { code, stderr } = await cli(
      'close',
      '--profile',
      'demo',
      '--period',
      '2025-10',
      '--run',
      'x',
      '--out',
      dir,
    );

    expect({ code, first: stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: 'error: --run: "x" is not a run id (such as 20251103T091500Z-3f9a1c)',
    });
  });
});
