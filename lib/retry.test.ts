import { describe, expect, it } from 'vitest';
import { fullJitter, retry } from './retry.ts';

class Transient extends Error {}
class Permanent extends Error {}

describe('retry', () => {
  it('returns the result of the first attempt that succeeds', async () => {
    let calls = 0;

    const result = await retry(
      async (attempt) => {
        calls += 1;
        if (attempt < 3) throw new Transient();
        return `done after ${attempt}`;
      },
      { attempts: 5, retryable: (error) => error instanceof Transient },
    );

    expect(result).toBe('done after 3');
    expect(calls).toBe(3);
  });

  it('throws the last error once the attempts are spent', async () => {
    const errors = [new Transient('1'), new Transient('2')];
    let calls = 0;

    const outcome = retry(
      async () => {
        throw errors[calls++];
      },
      { attempts: 2, retryable: (error) => error instanceof Transient },
    );

    await expect(outcome).rejects.toBe(errors[1]);
    expect(calls).toBe(2);
  });

  it('throws an error that is not retryable at once', async () => {
    let calls = 0;

    const outcome = retry(
      async () => {
        calls += 1;
        throw new Permanent();
      },
      { attempts: 5, retryable: (error) => error instanceof Transient },
    );

    await expect(outcome).rejects.toBeInstanceOf(Permanent);
    expect(calls).toBe(1);
  });

  it('pauses before each retry by the injected sleep, with the delay of its retry index', async () => {
    const pauses: number[] = [];
    const retried: [number, number][] = [];

    await retry(
      async (attempt) => {
        if (attempt < 4) throw new Transient();
      },
      {
        attempts: 4,
        retryable: (error) => error instanceof Transient,
        delayMs: (index) => 10 * (index + 1),
        sleep: async (ms) => {
          pauses.push(ms);
        },
        onRetry: (_error, attempt, delay) => retried.push([attempt, delay]),
      },
    );

    expect(pauses).toEqual([10, 20, 30]);
    expect(retried).toEqual([
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
  });
});

describe('fullJitter', () => {
  it('returns random × min(max, base × factor^index)', () => {
    const delay = fullJitter({ baseMs: 100, maxMs: 1000, factor: 3, random: () => 0.5 });

    expect([0, 1, 2, 3].map(delay)).toEqual([50, 150, 450, 500]);
  });
});
