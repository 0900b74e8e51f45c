/**
 * The practice view's cells from rows the API could answer: a reconciliation status read
 * defensively from a job (top level or its result; any other shape is "not yet"), a difference
 * shown as ✗ with its words, open warnings linked, a restated period marked changed. The HTML is
 * read back with a DOM-free parse of the rendered string (cells by their `data-label`).
 */
import { describe, expect, it } from 'vitest';
import { openingOf, type PracticeRow, PracticeView, reconciliationOf } from './practice.tsx';

const ctx = { base: '/portal', api: '', signIn: { kind: 'development' as const, profiles: ['acme'] } };

function row(fields: Partial<PracticeRow>): PracticeRow {
  return {
    profile: 'acme',
    period: '2025-03',
    set: { jobId: 'f'.repeat(32), runId: '20250401T000000Z-abcdef', finishedAt: '2025-04-01T00:05:00Z' },
    openWarnings: null,
    reconciled: null,
    opening: null,
    closed: null,
    restatements: 0,
    ...fields,
  };
}

/** Each row's cells by their column, in the page's order. */
async function cells(rows: PracticeRow[]): Promise<Record<string, string>[]> {
  const html = String(await PracticeView({ ctx, rows })?.toString());
  return [...html.matchAll(/<tr id="practice-[^"]+">(.*?)<\/tr>/g)].map((match) =>
    Object.fromEntries(
      [...(match[1] ?? '').matchAll(/<t[hd][^>]*data-label="([^"]+)"[^>]*>(.*?)<\/t[hd]>/g)].map((cell) => [
        cell[1],
        (cell[2] ?? '').replace(/<[^>]+>/g, '').trim(),
      ]),
    ),
  );
}

describe('reconciliationOf', () => {
  it('reads a status at the top of a job or in its result, and nothing else', () => {
    expect(reconciliationOf({ reconciliation: { status: 'difference', ledgers: [] } })).toEqual({
      status: 'difference',
    });
    expect(reconciliationOf({ result: { reconciliation: { status: 'reconciled' } } })).toEqual({
      status: 'reconciled',
    });
    expect(
      reconciliationOf({
        result: { reconciliation: { status: 'not-reconciled', note: 'not reconciled: why' } },
      }),
    ).toEqual({ status: 'not-reconciled', note: 'not reconciled: why' });
    expect(reconciliationOf({ reconciliation: { status: 'differences', note: 7 } })).toEqual({
      status: 'differences',
    });
    expect(reconciliationOf({ reconciliation: { status: 3 } })).toBeNull();
    expect(reconciliationOf({ reconciliation: 'yes' })).toBeNull();
    expect(reconciliationOf(null)).toBeNull();
    expect(reconciliationOf({})).toBeNull();
  });
});

describe('openingOf', () => {
  it("reads the opening check's status, words and closed month from a job or its result, and nothing else", () => {
    const opening = { status: 'continues', note: 'opening balances continue …', previousPeriod: '2025-01' };
    expect(openingOf({ result: { reconciliation: { status: 'reconciled', note: 'x', opening } } })).toEqual(
      opening,
    );
    expect(openingOf({ reconciliation: { opening: { status: 'break', note: 3 } } })).toEqual({
      status: 'break',
    });
    expect(openingOf({ reconciliation: { status: 'reconciled' } })).toBeNull();
    expect(openingOf({ reconciliation: { opening: { status: '' } } })).toBeNull();
    expect(openingOf(null)).toBeNull();
  });
});

describe('the practice view', () => {
  it('shows each state in words, newest month first as given, a difference and a restatement as ✗', async () => {
    const rows = await cells([
      row({ period: '2025-03', reconciled: { status: 'difference' }, openWarnings: 2 }),
      row({
        period: '2025-02',
        reconciled: { status: 'reconciled' },
        openWarnings: 0,
        closed: { by: 'ana@example.com', at: '2025-03-02T10:00:00Z', runId: '20250301T000000Z-abcdef' },
        restatements: 1,
      }),
    ]);
    expect(rows.map((r) => r.Month)).toEqual(['2025-03', '2025-02']);
    expect(rows[0]?.Reconciled).toBe('✗ not reconciled — difference');
    expect(rows[0]?.['Warnings open']).toBe('✗ 2 open');
    expect(rows[0]?.Closed).toBe('not closed');
    expect(rows[1]?.Reconciled).toBe('✓ reconciled');
    expect(rows[1]?.['Warnings open']).toBe('✓ none open');
    expect(rows[1]?.Closed).toBe(
      '✓ closed by ana@example.com, 2025-03-02 10:00 UTC at run 20250301T000000Z-abcdef',
    );
    expect(rows[1]?.['Changed since close']).toBe('✗ changed (1 restatement)');
  });

  it('says a month with differences or without a reconciliation "not reconciled", with why', async () => {
    const rows = await cells([
      row({
        reconciled: {
          status: 'differences',
          note: 'not reconciled: 1 of 78 ledger balances at the end of 2025-03-31 (UTC) differ from what the service reports',
        },
      }),
      row({
        reconciled: { status: 'not-reconciled', note: 'not reconciled: the service reports no balances' },
      }),
      row({ reconciled: { status: 'not-reconciled' } }),
    ]);
    expect(rows.map((r) => r.Reconciled)).toEqual([
      '✗ not reconciled — 1 of 78 ledger balances at the end of 2025-03-31 (UTC) differ from what the service reports',
      '✗ not reconciled — the service reports no balances',
      '✗ not reconciled',
    ]);
  });

  it("says each month's opening check: continues the closed month, a break with it and why, not checked and why", async () => {
    const rows = await cells([
      row({
        period: '2025-04',
        opening: {
          status: 'break',
          note: 'opening balances break: 1 of 78 ledger balances at the start of 2025-04-01 (Europe/Berlin) differ from the closing balances of the closed 2025-03 (run r3)',
          previousPeriod: '2025-03',
        },
      }),
      row({
        period: '2025-03',
        opening: { status: 'continues', note: 'opening balances continue …', previousPeriod: '2025-02' },
      }),
      row({
        period: '2025-02',
        opening: {
          status: 'no-closed-previous',
          note: 'opening balances not checked: no closed period of acme ends at the start of 2025-02-01 (UTC), where 2025-02 begins',
        },
      }),
      row({ period: '2025-01' }),
    ]);
    expect(rows.map((r) => r['Opening balances'])).toEqual([
      '✗ opening break with 2025-03 — 1 of 78 ledger balances at the start of 2025-04-01 (Europe/Berlin) differ from the closing balances of the closed 2025-03 (run r3)',
      '✓ opening continues 2025-02',
      'opening not checked — no closed period of acme ends at the start of 2025-02-01 (UTC), where 2025-02 begins',
      '— not yet',
    ]);
  });
});
