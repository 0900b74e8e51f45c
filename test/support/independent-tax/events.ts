/**
 * The snapshot's transactions as taxable events, by the rules stated in lib/gains/README.md
 * (Input mapping, Fees), written apart from lib/gains: this is the cross-check's own reading.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import BigJs from 'big.js';
import { DateTime } from 'luxon';
import type { Converter } from './rates.ts';

export const Big = BigJs();
Big.DP = 40;
export type Dec = BigJs;

const FIAT = new Set([
  'USD',
  'EUR',
  'GBP',
  'CHF',
  'JPY',
  'CAD',
  'AUD',
  'NZD',
  'SEK',
  'NOK',
  'DKK',
  'SGD',
  'HKD',
]);
const INCOME = new Set(['income', 'staking']);
const TRANSFER = new Set(['transfer', 'bridge']);
const TOLERANCE_MS = 24 * 3_600_000;

/** A transaction as the simulator sends it (the demo's field map is the identity). */
export interface SnapshotTx {
  id: string;
  date: string;
  category: string | null;
  hash: string | null;
  accountId: string | null;
  movements: { symbol: string; amount: string; value: string | null }[];
  fee?: {
    amount?: string | null;
    currency?: string | null;
    symbol?: string | null;
    quantity?: string | null;
  } | null;
  deleted?: boolean;
}

/** Every transaction record of a `…_snapshot.ndjson.gz`, in the file's order (date, then id). */
export function readSnapshot(file: string): SnapshotTx[] {
  const lines = gunzipSync(readFileSync(file)).toString('utf8').split('\n').filter(Boolean);
  const header = JSON.parse(lines[0] as string);
  if (
    header.kind !== 'header' ||
    header.fields.movements !== 'movements' ||
    header.fields.feeAmount !== 'fee.amount'
  ) {
    throw new Error('snapshot header or field map not the demo one');
  }
  return lines
    .slice(1)
    .map((line) => JSON.parse(line))
    .filter((record) => record.kind === 'transaction' && !record.data.deleted)
    .map((record) => record.data as SnapshotTx);
}

/** One taxable event; amounts in the filing currency, exact. */
export interface TaxEvent {
  kind: 'acquisition' | 'disposal' | 'withdrawal' | 'move';
  token: string;
  account: string;
  /** Move: the receiving account. */
  to?: string;
  quantity: Dec;
  /** Disposal: gross value; acquisition: value received. */
  value: Dec;
  /** The transaction's fiat fee put on this event (disposal or first acquisition), else 0. */
  fee: Dec;
  income: boolean;
  at: string;
  /** Calendar day in the tax zone. */
  day: string;
  tx: string;
}

export interface MappingOptions {
  zone: string;
  convert: Converter;
  /** uk: each side of a token-for-token exchange at the value of the other side. */
  counterpart: boolean;
}

interface Side {
  tx: SnapshotTx;
  index: number;
  symbol: string;
  amount: Dec;
  value: Dec;
  paired?: Side;
  used?: boolean;
}

const abs = (v: string | null) => new Big(v ?? '0').abs();

/** Pairs transfer outs with transfer ins (same hash and token, other account, at most 24 h apart). */
function pairTransfers(txs: readonly SnapshotTx[]): Map<string, Side> {
  const outs: Side[] = [];
  const ins: Side[] = [];
  for (const tx of txs) {
    if (!TRANSFER.has(tx.category ?? '')) continue;
    tx.movements.forEach((m, index) => {
      if (FIAT.has(m.symbol) || new Big(m.amount).eq(0)) return;
      const side = { tx, index, symbol: m.symbol, amount: new Big(m.amount).abs(), value: abs(m.value) };
      (new Big(m.amount).lt(0) ? outs : ins).push(side);
    });
  }
  const byKey = new Map<string, Side>();
  for (const out of outs) {
    const own = ins.find((i) => !i.used && i.tx === out.tx && i.symbol === out.symbol);
    const other = ins.find(
      (i) =>
        !i.used &&
        i.tx.hash !== null &&
        i.tx.hash === out.tx.hash &&
        i.symbol === out.symbol &&
        (i.tx.accountId ?? '(none)') !== (out.tx.accountId ?? '(none)') &&
        Math.abs(Date.parse(i.tx.date) - Date.parse(out.tx.date)) <= TOLERANCE_MS,
    );
    const match = own ?? other;
    if (!match) continue;
    match.used = true;
    out.paired = match;
    byKey.set(`${out.tx.id}#${out.index}`, out);
    byKey.set(`${match.tx.id}#${match.index}`, match);
  }
  return byKey;
}

/** The events of every transaction, in processing order (instant, then input order). */
export function toTaxEvents(txs: readonly SnapshotTx[], options: MappingOptions): TaxEvent[] {
  const pairs = pairTransfers(txs);
  const events: { e: TaxEvent; t: number; n: number }[] = [];
  let n = 0;
  for (const tx of txs) {
    const day = DateTime.fromISO(tx.date, { zone: options.zone }).toISODate() as string;
    const conv = (usd: Dec) => options.convert.convert(usd.toFixed(), day);
    const account = tx.accountId ?? '(none)';
    const base = { account, at: tx.date, day, tx: tx.id, fee: new Big(0), income: false };
    const push = (e: TaxEvent) => events.push({ e, t: Date.parse(tx.date), n: n++ });
    const category = tx.category ?? '';
    const moves = tx.movements
      .map((m, index) => ({ m, index }))
      .filter(({ m }) => !FIAT.has(m.symbol) && !new Big(m.amount).eq(0));
    const outs = moves.filter(({ m }) => new Big(m.amount).lt(0));
    const ins = moves.filter(({ m }) => new Big(m.amount).gt(0));
    const outValues = outs.map(({ m }) => conv(abs(m.value)));
    const inValues = ins.map(({ m }) => conv(abs(m.value)));
    const exchange = options.counterpart && !TRANSFER.has(category) && outs.length > 0 && ins.length > 0;
    const share = (total: Dec, own: readonly Dec[], i: number) => {
      const sum = own.reduce((a, b) => a.plus(b), new Big(0));
      return sum.eq(0)
        ? new Big(0)
        : total
            .times(own[i] as Dec)
            .div(sum)
            .round(18, Big.roundHalfEven);
    };
    const inTotal = inValues.reduce((a, b) => a.plus(b), new Big(0));
    const outTotal = outValues.reduce((a, b) => a.plus(b), new Big(0));
    const created: TaxEvent[] = [];
    outs.forEach(({ m, index }, i) => {
      const quantity = new Big(m.amount).abs();
      const value = exchange ? share(inTotal, outValues, i) : (outValues[i] as Dec);
      const pair = TRANSFER.has(category) ? pairs.get(`${tx.id}#${index}`) : undefined;
      if (TRANSFER.has(category) && !pair) {
        created.push({ ...base, kind: 'withdrawal', token: m.symbol, quantity, value });
      } else if (pair?.paired) {
        const other = pair.paired;
        const to = other.tx.accountId ?? '(none)';
        const moved = quantity.lt(other.amount) ? quantity : other.amount;
        created.push({ ...base, kind: 'move', to, token: m.symbol, quantity: moved, value: new Big(0) });
        if (quantity.gt(other.amount)) {
          const lost = quantity.minus(other.amount);
          const v = value.times(lost).div(quantity).round(18, Big.roundHalfEven);
          created.push({ ...base, kind: 'disposal', token: m.symbol, quantity: lost, value: v });
        } else if (other.amount.gt(quantity)) {
          const extra = other.amount.minus(quantity);
          const v = conv(other.value).times(extra).div(other.amount).round(18, Big.roundHalfEven);
          created.push({
            ...base,
            account: to,
            kind: 'acquisition',
            token: m.symbol,
            quantity: extra,
            value: v,
          });
        }
      } else {
        created.push({ ...base, kind: 'disposal', token: m.symbol, quantity, value });
      }
    });
    ins.forEach(({ m, index }, i) => {
      if (TRANSFER.has(category) && pairs.has(`${tx.id}#${index}`)) return; // part of a move
      const value = exchange ? share(outTotal, inValues, i) : (inValues[i] as Dec);
      const income = INCOME.has(category) && outs.length === 0;
      created.push({
        ...base,
        kind: 'acquisition',
        token: m.symbol,
        quantity: new Big(m.amount),
        value,
        income,
      });
    });
    const fee = tx.fee;
    const feeValue = fee?.amount ? conv(abs(fee.amount)) : new Big(0);
    const feeIgnored = category === 'fee' && outs.length > 0;
    if (!feeIgnored && !TRANSFER.has(category) && feeValue.gt(0)) {
      const target =
        created.find((e) => e.kind === 'disposal') ?? created.find((e) => e.kind === 'acquisition');
      if (target) target.fee = feeValue;
    }
    if (!feeIgnored && fee?.symbol && !FIAT.has(fee.symbol) && new Big(fee.quantity ?? '0').gt(0)) {
      created.push({
        ...base,
        kind: 'disposal',
        token: fee.symbol,
        quantity: new Big(fee.quantity as string),
        value: feeValue,
      });
    }
    for (const e of created) push(e);
  }
  return events.sort((a, b) => a.t - b.t || a.n - b.n).map(({ e }) => e);
}

/** Money as a line shows it: once, half to even, to the cent/penny. */
export const cents = (v: Dec) => v.round(2, Big.roundHalfEven);
