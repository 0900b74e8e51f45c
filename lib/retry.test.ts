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

  it('waits for an asynchronous decision and picks each pause from the error', async () => {
    const pauses: number[] = [];
    const waits = [new Transient('300'), new Transient('0'), new Transient('70')];
    let calls = 0;

    const result = await retry(
      async () => {
        const error = waits[calls++];
        if (error) throw error;
        return calls;
      },
      {
        attempts: 4,
        retryable: async (error) => error instanceof Transient,
        delayMs: (_index, error) => Number((error as Error).message),
        sleep: async (ms) => {
          pauses.push(ms);
        },
      },
    );

    // A pause of 0 ms is skipped.
    expect({ result, pauses }).toEqual({ result: 4, pauses: [300, 70] });
  });

  it("does not ask whether the last attempt's error is retryable", async () => {
    let asked = 0;

    const outcome = retry(
      async () => {
        throw new Transient();
      },
      {
        attempts: 2,
        retryable: () => {
          asked += 1;
          return true;
        },
      },
    );

    await expect(outcome).rejects.toBeInstanceOf(Transient);
    expect(asked).toBe(1);
  });
});

describe('fullJitter', () => {
  it('returns random × min(max, base × factor^index)', () => {
    const delay = fullJitter({ baseMs: 100, maxMs: 1000, factor: 3, random: () => 0.5 });

    expect([0, 1, 2, 3].map(delay)).toEqual([50, 150, 450, 500]);
  });

  it('returns whole milliseconds, 0 when random returns 0', () => {
    expect(fullJitter({ baseMs: 100, maxMs: 1000, random: () => 0.999 })(0)).toBe(99);
    expect(fullJitter({ baseMs: 100, maxMs: 1000, random: () => 0 })(5)).toBe(0);
  });
});
