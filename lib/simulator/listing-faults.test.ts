import { afterEach, describe, expect, it } from 'vitest';
import { signedGet, signedJson } from '../../test/support/simulator.ts';
import { FaultPlan } from './faults.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile, SimulatorOptions } from './types.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;

interface PageBody {
  items: { id: string }[];
  page: number;
  totalItems: number;
  totalPages: number;
}

let sim: RunningSimulator | undefined;
afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

async function start(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  sim = await startSimulator({ rateLimitPerSecond: 0, ...options });
  return sim;
}

/** Page `page` (1-based) of acme's transactions, 10 per page. */
async function page(s: RunningSimulator, pageNumber: number, profile: SimulatedProfile = acme) {
  return (await signedJson(s.url, profile, '/v2/transactions', {
    query: [
      ['page', String(pageNumber)],
      ['pageSize', '10'],
    ],
  })) as PageBody;
}

const ids = (body: PageBody) => body.items.map((item) => item.id);

describe('FaultPlan listing faults', () => {
  it('draws a non-zero shift within ±maxItems for every pageShift decision, the same for the same seed', () => {
    const draw = () => {
      const plan = new FaultPlan(7, { pageShift: { rate: 1, maxItems: 3 } });
      return Array.from({ length: 40 }, () => plan.decide().shift);
    };
    const shifts = draw();
    expect(shifts.every((k) => k !== 0 && Math.abs(k) <= 3)).toBe(true);
    expect(new Set(shifts).size).toBeGreaterThan(2);
    expect(draw()).toEqual(shifts);
  });

  it('draws a non-zero total delta within ±maxDelta for every wrongTotal decision', () => {
    const plan = new FaultPlan(3, { wrongTotal: { rate: 1, maxDelta: 2 } });
    const deltas = Array.from({ length: 40 }, () => plan.decide().totalDelta);
    expect(deltas.every((d) => d !== 0 && Math.abs(d) <= 2)).toBe(true);
  });

  it('keeps every total delta below the real count with direction under, above with over', () => {
    const under = new FaultPlan(3, { wrongTotal: { rate: 1, maxDelta: 2, direction: 'under' } });
    const over = new FaultPlan(3, { wrongTotal: { rate: 1, maxDelta: 2, direction: 'over' } });
    expect(Array.from({ length: 20 }, () => under.decide().totalDelta).every((d) => d < 0)).toBe(true);
    expect(Array.from({ length: 20 }, () => over.decide().totalDelta).every((d) => d > 0)).toBe(true);
  });

  it('injects faults only into the requests of the burst, counted from the last replace', () => {
    const plan = new FaultPlan(1, { serverError: { rate: 1 }, burst: { from: 2, count: 3 } });
    const kinds = Array.from({ length: 6 }, () => plan.decide().kind);
    plan.replace({ serverError: { rate: 1 }, burst: { from: 1, count: 1 } });
    const after = [plan.decide().kind, plan.decide().kind];
    expect(kinds).toEqual([null, 'serverError', 'serverError', 'serverError', null, null]);
    expect(after).toEqual(['serverError', null]);
  });
});

describe('simulator pageShift fault', () => {
  it('never shifts the first page of a listing', async () => {
    const clean = await page(await start(), 1);
    await sim?.close();
    const s = await start({ faults: { pageShift: { rate: 1, maxItems: 3 } } });

    const first = await page(s, 1);

    expect(ids(first)).toEqual(ids(clean));
    expect(s.requestLog[0]?.fault).toBeUndefined();
  });

  it('repeats or skips items of a later page by the drawn shift, keeping the total without adjustTotal', async () => {
    const clean = await start();
    const reference = [
      ...ids(await page(clean, 1)),
      ...ids(await page(clean, 2)),
      ...ids(await page(clean, 3)),
    ];
    const total = (await page(clean, 2)).totalItems;
    await clean.close();
    const plan = new FaultPlan(1, { pageShift: { rate: 1, maxItems: 3 } });
    const shift = plan.decide().shift;
    const s = await start({ seed: 1, faults: { pageShift: { rate: 1, maxItems: 3 } } });

    const shifted = await page(s, 2);

    expect(ids(shifted)).toEqual(reference.slice(10 + shift, 20 + shift));
    expect([shifted.page, shifted.totalItems, s.requestLog[0]?.fault]).toEqual([2, total, 'pageShift']);
  });

  it('moves the total by the shift with adjustTotal, as when items were inserted or removed', async () => {
    const clean = await start({ seed: 5 });
    const total = (await page(clean, 2)).totalItems;
    await clean.close();
    const shift = new FaultPlan(5, { pageShift: { rate: 1, maxItems: 2 } }).decide().shift;
    const s = await start({ seed: 5, faults: { pageShift: { rate: 1, maxItems: 2, adjustTotal: true } } });

    const shifted = await page(s, 2);

    expect([shifted.totalItems, shifted.totalPages]).toEqual([
      total - shift,
      Math.ceil((total - shift) / 10),
    ]);
  });
});

describe('simulator wrongTotal fault', () => {
  it('reports a total off by the drawn delta while the items stay those of the page', async () => {
    const clean = await start({ seed: 9 });
    const reference = await page(clean, 1);
    await clean.close();
    const delta = new FaultPlan(9, { wrongTotal: { rate: 1, maxDelta: 4 } }).decide().totalDelta;
    const s = await start({ seed: 9, faults: { wrongTotal: { rate: 1, maxDelta: 4 } } });

    const wrong = await page(s, 1);

    expect(ids(wrong)).toEqual(ids(reference));
    expect([wrong.totalItems, wrong.totalPages, s.requestLog[0]?.fault]).toEqual([
      reference.totalItems + delta,
      Math.ceil((reference.totalItems + delta) / 10),
      'wrongTotal',
    ]);
  });

  it('keeps the next cursor of a cursor listing where the real items continue', async () => {
    const shape = {
      pagination: {
        style: 'cursor' as const,
        cursorParam: 'cursor',
        limitParam: 'limit',
        limit: 10,
        next: { from: 'field' as const, path: 'next' },
        totalItemsPath: 'total',
      },
    };
    const clean = await start({ shape });
    const reference = (await signedJson(clean.url, acme, '/v2/transactions', {})) as { next: string };
    await clean.close();
    const s = await start({ shape, faults: { wrongTotal: { rate: 1, maxDelta: 1000 } } });

    const body = (await signedJson(s.url, acme, '/v2/transactions', {})) as { next: string; total: number };

    expect(body.next).toBe(reference.next);
    expect(s.requestLog[0]?.fault).toBe('wrongTotal');
  });
});

describe('simulator rotateCredentials', () => {
  it('accepts the new key with the same data and refuses the revoked one with 401', async () => {
    const s = await start();
    const before = await page(s, 1);
    const rotated: SimulatedProfile = {
      ...acme,
      apiKey: 'pk_acme_rotated_0001',
      apiSecret: 'sk_acme_rotated_secret',
    };

    s.rotateCredentials('acme', { apiKey: rotated.apiKey, apiSecret: rotated.apiSecret });
    const old = await signedGet(s.url, acme, '/v2/transactions');
    const oldBody = (await old.json()) as { error: { code: string } };
    const after = await page(s, 1, rotated);

    expect([old.status, oldBody.error.code]).toEqual([401, 'invalid_api_key']);
    expect(ids(after)).toEqual(ids(before));
    expect(s.profiles.find((p) => p.name === 'acme')?.apiKey).toBe(rotated.apiKey);
  });

  it('throws for an unknown profile or a key another profile holds', async () => {
    const s = await start();
    const demoKey = (DEFAULT_PROFILES[0] as SimulatedProfile).apiKey;

    expect(() => s.rotateCredentials('nobody', { apiKey: 'k', apiSecret: 's' })).toThrow(
      /no simulated profile/,
    );
    expect(() => s.rotateCredentials('acme', { apiKey: demoKey, apiSecret: 's' })).toThrow(/another profile/);
  });
});
