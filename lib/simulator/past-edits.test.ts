import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAllItems } from '../../test/support/simulator.ts';
import { ValidationError } from '../errors.ts';
import type { PastEdit } from './past-edits.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile } from './types.ts';

type Item = Record<string, unknown> & {
  id: string;
  date: string;
  lastModifiedDate: string;
  deleted?: boolean;
};

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
const OCTOBER: [string, string][] = [
  ['startDate', '2025-10-01T00:00:00.000Z'],
  ['endDate', '2025-11-01T00:00:00.000Z'],
];

describe('simulator past edits', () => {
  let sim: RunningSimulator;
  let clock = Date.parse('2025-11-02T00:00:00.000Z');
  let before: Item[];
  const at = '2025-11-10T08:00:00.000Z';

  beforeAll(async () => {
    // A clock the test moves; signatures are made with the real clock, so any skew is accepted.
    sim = await startSimulator({
      rateLimitPerSecond: 0,
      now: () => clock,
      maxClockSkewMs: Number.MAX_SAFE_INTEGER,
    });
    before = (await fetchAllItems(sim.url, acme, '/v2/transactions', OCTOBER)) as Item[];
    const [modified, deleted] = [before[0] as Item, before[1] as Item];
    sim.editPast([
      {
        kind: 'modify',
        profile: 'acme',
        at,
        id: modified.id,
        set: { value: { amount: '12.34', currency: 'USD' } },
      },
      { kind: 'delete', profile: 'acme', at, id: deleted.id },
      {
        kind: 'add',
        profile: 'acme',
        at,
        transaction: {
          ...structuredClone(modified),
          id: 'tx_added_by_test',
          date: '2025-10-15T12:00:00.000Z',
        },
      },
    ]);
  });
  afterAll(() => sim.close());

  it('serves nothing of an edit before its instant', async () => {
    const now = (await fetchAllItems(sim.url, acme, '/v2/transactions', OCTOBER)) as Item[];
    expect(now).toEqual(before);
  });

  it('serves the modified, added and deleted transactions from the edit instant on', async () => {
    clock = Date.parse('2025-11-20T00:00:00.000Z');
    const now = (await fetchAllItems(sim.url, acme, '/v2/transactions', OCTOBER)) as Item[];
    const ids = now.map((tx) => tx.id);
    expect(ids).not.toContain(before[1]?.id);
    expect(ids).toContain('tx_added_by_test');
    expect(now.find((tx) => tx.id === before[0]?.id)?.value).toEqual({ amount: '12.34', currency: 'USD' });
    expect(now.length).toBe(before.length);
    const dates = now.map((tx) => `${tx.date}|${tx.id}`);
    expect(dates).toEqual([...dates].sort());
  });

  it('lists exactly the three edits in the timeline since the edit, the deleted one marked, lastModifiedDate the edit instant', async () => {
    clock = Date.parse('2025-11-20T00:00:00.000Z');
    const items = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline', [
      ['lastModifiedDate', '2026-03-01T00:00:00.000Z'],
    ])) as Item[];
    expect(items).toEqual([]);
    const since = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline', [
      ['lastModifiedDate', at],
    ])) as Item[];
    const edited = since.filter((item) => item.lastModifiedDate === at);
    expect(edited.map((item) => [item.id, item.deleted === true]).sort()).toEqual(
      [
        [before[0]?.id, false],
        [before[1]?.id, true],
        ['tx_added_by_test', false],
      ].sort(),
    );
    expect(
      edited.every((item) => typeof (item.source as { sourceGuid?: unknown }).sourceGuid === 'string'),
    ).toBe(true);
  });

  it('leaves deleted transactions out of the timeline without lastModifiedDate', async () => {
    const items = (await fetchAllItems(sim.url, acme, '/v2/transactions/timeline')) as Item[];
    expect(items.some((item) => item.id === before[1]?.id)).toBe(false);
    expect(items.some((item) => item.id === 'tx_added_by_test')).toBe(true);
  });
});

describe('simulator past edits checked as they are added', () => {
  /** The error `startSimulator` is refused with for `pastEdits`, or the running simulator closed. */
  async function refusal(pastEdits: unknown[]): Promise<unknown> {
    const started = await startSimulator({ pastEdits: pastEdits as PastEdit[] }).then(
      (sim) => sim,
      (error: unknown) => error,
    );
    if (started instanceof Error) return started;
    await (started as RunningSimulator).close();
    return 'started';
  }
  const at = '2025-11-10T08:00:00.000Z';

  it.each([
    [
      { kind: 'rename', profile: 'acme', at, id: 'tx_x' },
      'edits[0].kind',
      /expected "modify", "add" or "delete", got "rename"/,
    ],
    [
      { kind: 'delete', profile: 'nobody', at, id: 'tx_x' },
      'edits[0].profile',
      /no simulated profile "nobody" \(it has: demo, acme/,
    ],
    [
      { kind: 'delete', profile: 'acme', at, id: 'tx_NOT_GENERATED' },
      'edits[0].id',
      /no live transaction "tx_NOT_GENERATED" in profile "acme"/,
    ],
    [{ kind: 'modify', profile: 'acme', at, id: 'tx_x' }, 'edits[0].set', /expected an object/],
    [
      { kind: 'add', profile: 'acme', at: 'soon', transaction: { id: 'tx_new' } },
      'edits[0].at',
      /ISO instant/,
    ],
  ])('refuses at start an edit %j, naming %s', async (edit, field, reason) => {
    const error = await refusal([edit]);

    expect(error).toBeInstanceOf(ValidationError);
    expect({ field: (error as ValidationError).field, reason: (error as ValidationError).reason }).toEqual({
      field,
      reason: expect.stringMatching(reason),
    });
  });

  it('takes a modify of a transaction an earlier edit adds, and refuses one before it is added', async () => {
    const add = { kind: 'add', profile: 'acme', at, transaction: { id: 'tx_new', date: at } };
    const modify = (when: string) => ({
      kind: 'modify',
      profile: 'acme',
      at: when,
      id: 'tx_new',
      set: { memo: 'x' },
    });

    expect(await refusal([add, modify('2025-11-11T00:00:00.000Z')])).toBe('started');
    expect(await refusal([add, modify('2025-11-09T00:00:00.000Z')])).toMatchObject({ field: 'edits[1].id' });
  });
});
