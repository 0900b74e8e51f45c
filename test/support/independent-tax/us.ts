/**
 * Form 8949 and Schedule D (2025) and Schedule 1 line 8v, checked apart from lib/gains: the box
 * totals and Schedule D lines must be the sums of the 8949 rows (FIFO itself is cross-checked
 * against rp2 in lib/gains/rp2-crosscheck.test.ts); the year's proceeds must be the disposals'
 * values less their fees, whatever lots they matched; line 8v the income receipts at value.
 */
import { Big, cents, type Dec, type TaxEvent } from './events.ts';

const ZERO = new Big(0);

/** Schedule D line of each Form 8949 box (the 2025 forms' own cross-references). */
export const SCHEDULE_D_LINE: Record<string, string> = {
  A: '1b',
  G: '1b',
  B: '2',
  H: '2',
  C: '3',
  I: '3',
  D: '8b',
  J: '8b',
  E: '9',
  K: '9',
  F: '10',
  L: '10',
};

export interface BoxTotal {
  box: string;
  line: string;
  rows: number;
  proceeds: string;
  cost: string;
  adjustment: string;
  gain: string;
}

/** Sums the Form 8949 rows (not its TOTAL rows) by box. */
export function form8949Totals(rows: readonly Record<string, string>[]): BoxTotal[] {
  const boxes = new Map<string, { rows: number; p: Dec; c: Dec; a: Dec; g: Dec }>();
  for (const row of rows) {
    if ((row.description ?? '').startsWith('TOTAL')) continue;
    const box = row.box as string;
    const t = boxes.get(box) ?? { rows: 0, p: ZERO, c: ZERO, a: ZERO, g: ZERO };
    const p = new Big(row.proceeds as string);
    const c = new Big(row.cost as string);
    const a = new Big(row.adjustment || '0');
    if (
      !p
        .minus(c)
        .plus(a)
        .eq(row.gain as string)
    )
      throw new Error(`gain ≠ proceeds − cost on ${row.transaction}`);
    boxes.set(box, {
      rows: t.rows + 1,
      p: t.p.plus(p),
      c: t.c.plus(c),
      a: t.a.plus(a),
      g: t.g.plus(row.gain as string),
    });
  }
  return [...boxes]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([box, t]) => ({
      box,
      line: SCHEDULE_D_LINE[box] as string,
      rows: t.rows,
      proceeds: t.p.toFixed(2),
      cost: t.c.toFixed(2),
      adjustment: t.a.toFixed(2),
      gain: t.g.toFixed(2),
    }));
}

/** Σ (value − fee) of the year's disposals, exact: what every 8949 row's proceeds add up to before rounding. */
export function netProceeds(events: readonly TaxEvent[], year: number): { total: Dec; disposals: number } {
  const sold = events.filter((e) => e.kind === 'disposal' && e.day.startsWith(`${year}-`));
  return { total: sold.reduce((a, e) => a.plus(e.value).minus(e.fee), ZERO), disposals: sold.length };
}

/** Schedule 1 line 8v: the year's income receipts, each at its value rounded once, by token and in total. */
export function scheduleOne(events: readonly TaxEvent[], year: number) {
  const byToken = new Map<string, { receipts: number; amount: Dec }>();
  for (const e of events) {
    if (e.kind !== 'acquisition' || !e.income || !e.day.startsWith(`${year}-`)) continue;
    const t = byToken.get(e.token) ?? { receipts: 0, amount: ZERO };
    byToken.set(e.token, { receipts: t.receipts + 1, amount: t.amount.plus(cents(e.value)) });
  }
  const tokens = [...byToken].sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    tokens: tokens.map(([token, t]) => ({ token, receipts: t.receipts, amount: t.amount.toFixed(2) })),
    receipts: tokens.reduce((n, [, t]) => n + t.receipts, 0),
    total: tokens.reduce((a, [, t]) => a.plus(t.amount), ZERO).toFixed(2),
  };
}
