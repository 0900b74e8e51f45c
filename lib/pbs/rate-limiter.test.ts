import { describe, expect, it } from 'vitest';
import { fakeClock } from '../../test/pbs/support.ts';
import { createTokenBucket } from './rate-limiter.ts';

describe('createTokenBucket', () => {
  it('returns the first burst of tokens without waiting', async () => {
    const clock = fakeClock();
    const bucket = createTokenBucket({ ratePerSecond: 10, burst: 3, now: clock.now, sleep: clock.sleep });

    await Promise.all([bucket.acquire(), bucket.acquire(), bucket.acquire()]);

    expect(clock.sleeps).toEqual([]);
  });

  it('returns tokens spaced by 1/rate once the burst is spent', async () => {
    const clock = fakeClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 10, burst: 1, now: clock.now, sleep: clock.sleep });
    const times: number[] = [];

    for (let i = 0; i < 4; i++) {
      await bucket.acquire();
      times.push(clock.now());
    }

    expect(times).toEqual([0, 100, 200, 300]);
  });

  it('returns at most rate + burst tokens in any one-second span under concurrent callers', async () => {
    const clock = fakeClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 7, burst: 3, now: clock.now, sleep: clock.sleep });
    const times: number[] = [];

    await Promise.all(Array.from({ length: 50 }, () => bucket.acquire().then(() => times.push(clock.now()))));

    const worst = Math.max(...times.map((t) => times.filter((u) => u >= t && u < t + 1000).length));
    expect(times).toHaveLength(50);
    expect(worst).toBeLessThanOrEqual(10);
  });

  it('returns tokens to concurrent callers in arrival order', async () => {
    const clock = fakeClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 5, burst: 1, now: clock.now, sleep: clock.sleep });
    const order: number[] = [];

    await Promise.all([0, 1, 2, 3].map((n) => bucket.acquire().then(() => order.push(n))));

    expect(order).toEqual([0, 1, 2, 3]);
  });

  it('returns a token without waiting after an idle period refilled the bucket', async () => {
    const clock = fakeClock(0);
    const bucket = createTokenBucket({ ratePerSecond: 2, burst: 2, now: clock.now, sleep: clock.sleep });
    await bucket.acquire();
    await bucket.acquire();
    await clock.sleep(1000);
    clock.sleeps.length = 0;

    await bucket.acquire();
    await bucket.acquire();

    expect(clock.sleeps).toEqual([]);
  });
});

describe('createTokenBucket starting empty', () => {
  it('returns the first token one interval after creation with initialTokens 0', async () => {
    const clock = fakeClock(0);
    const bucket = createTokenBucket({
      ratePerSecond: 4,
      burst: 1,
      initialTokens: 0,
      now: clock.now,
      sleep: clock.sleep,
    });

    await bucket.acquire();

    expect(clock.now()).toBe(250);
  });

  it('returns requests of buckets created one after another spaced by at least 1/rate', async () => {
    const clock = fakeClock(0);
    const times: number[] = [];
    for (let task = 0; task < 5; task++) {
      const bucket = createTokenBucket({
        ratePerSecond: 4,
        burst: 1,
        initialTokens: 0,
        now: clock.now,
        sleep: clock.sleep,
      });
      await bucket.acquire();
      times.push(clock.now());
    }

    expect(times).toEqual([250, 500, 750, 1000, 1250]);
  });
});
