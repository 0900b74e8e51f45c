/**
 * Summaries of canonical transactions: by month × protocol × category, and by token. Money is
 * shown to its currency's minor unit: each transaction's amount is rounded once (half to even,
 * as the transactions report shows it), sums add the rounded amounts exactly, and TOTAL rows are
 * the exact sums of the rows above them as shown.
 */

import type { CanonicalTransaction } from '../../domain/index.ts';
import {
  absDecimal,
  addDecimal,
  type Cell,
  type Column,
  DecimalSum,
  moneyCell,
  moneyHeader,
  numberWidth,
  type Row,
  signDecimal,
  subtractDecimal,
  type TableSource,
  type TableSpec,
  toMinorUnit,
  wallClock,
} from '../../domain/index.ts';

/**
 * A transaction without protocol (or category) is grouped under `null`, shown as an empty cell as
 * the Transactions sheet shows it: any text put there instead could be a real protocol's name (a
 * service may well name one `(none)`), and two different groups would read as one.
 */
/** First cell of a total row. */
export const TOTAL = 'TOTAL';

/** Options of {@link createSummary}. */
export interface SummaryOptions {
  /** IANA zone that decides which month a transaction falls in. */
  timeZone: string;
  /**
   * False when the run writes no summary tables: only the per-currency totals (the manifest's)
   * are kept, without working out each transaction's month or adding up its tokens. Default true.
   */
  tables?: boolean;
}

/** An accumulator of canonical transactions that yields the summary tables. */
export interface Summary {
  add(tx: CanonicalTransaction): void;
  /** The summary tables as they stand: by month, then by token (none without `tables`). */
  tables(): TableSource[];
  /** Count, value and fees per currency: the by-month TOTAL rows. */
  totals(): Map<string, CurrencyTotal>;
}

/**
 * The totals of several summaries as one summary of all their transactions would give them: each
 * month's rows are in one of them (a run's windows of a month or a year), so the sums of their
 * rows as shown add up, rounded as {@link Summary.totals} rounds them.
 */
export function mergeTotals(parts: readonly Map<string, CurrencyTotal>[]): Map<string, CurrencyTotal> {
  const merged = new Map<string, CurrencyTotal>();
  for (const part of parts) {
    for (const [currency, total] of part) {
      const sum = merged.get(currency) ?? { count: 0, value: '0', fees: '0' };
      merged.set(currency, {
        count: sum.count + total.count,
        value: addDecimal(sum.value, total.value),
        fees: addDecimal(sum.fees, total.fees),
      });
    }
  }
  for (const [currency, total] of merged) {
    merged.set(currency, {
      ...total,
      value: toMinorUnit(total.value, currencyCell(currency)),
      fees: toMinorUnit(total.fees, currencyCell(currency)),
    });
  }
  return merged;
}

/** The exact totals of one currency. */
export interface CurrencyTotal {
  count: number;
  value: string;
  fees: string;
}

/** Columns of the by-month table. */
export const MONTH_COLUMNS: readonly Column[] = [
  {
    key: 'month',
    header: 'Month',
    kind: 'text',
    description:
      'calendar month (YYYY-MM) in the report zone; TOTAL rows add up the rows above, per currency',
  },
  {
    key: 'protocol',
    header: 'Protocol',
    kind: 'text',
    description: 'DeFi protocol; empty for the transactions of no protocol',
  },
  {
    key: 'category',
    header: 'Category',
    kind: 'text',
    description: 'category; empty for the transactions of no category',
  },
  {
    key: 'currency',
    header: 'Currency',
    kind: 'text',
    description: 'currency of the value and fee sums (a fee in another currency gets a row of its own)',
  },
  { key: 'count', header: 'Transactions (count)', kind: 'integer', description: 'number of transactions' },
  {
    key: 'value',
    header: 'Value',
    kind: 'decimal',
    description: "sum of the transactions' values as the Transactions sheet shows them (to the minor unit)",
  },
  {
    key: 'fees',
    header: 'Fees',
    kind: 'decimal',
    description: 'sum of the fees as the Transactions sheet shows them (positive costs)',
  },
];

/** Columns of the by-token table. */
export const TOKEN_COLUMNS: readonly Column[] = [
  {
    key: 'token',
    header: 'Token',
    kind: 'text',
    description: 'token symbol; TOTAL rows add up the values per currency',
  },
  { key: 'currency', header: 'Currency', kind: 'text', description: 'value currency of the transactions' },
  {
    key: 'in_quantity',
    header: 'In quantity (token)',
    kind: 'decimal',
    exact: true,
    description: 'total quantity that came in (positive), exact',
  },
  {
    key: 'out_quantity',
    header: 'Out quantity (token)',
    kind: 'decimal',
    exact: true,
    description: 'total quantity that went out (positive), exact',
  },
  {
    key: 'net_quantity',
    header: 'Net quantity (token)',
    kind: 'decimal',
    exact: true,
    description: 'in minus out, exact',
  },
  { key: 'in_value', header: 'In value', kind: 'decimal', description: 'value of what came in (positive)' },
  {
    key: 'out_value',
    header: 'Out value',
    kind: 'decimal',
    description: 'value of what went out (positive)',
  },
  { key: 'net_value', header: 'Net value', kind: 'decimal', description: 'in value minus out value' },
];

/** The by-month table: month × protocol × category × currency, then TOTAL rows per currency. */
export const MONTH_SPEC: TableSpec = {
  name: 'summary_by_month',
  title: 'By month',
  description:
    'transactions by month, protocol, category and currency: count, value and fees, then TOTAL rows',
  columns: MONTH_COLUMNS,
};
/** The by-token table: token × value currency, then TOTAL value rows per currency. */
export const TOKEN_SPEC: TableSpec = {
  name: 'summary_by_token',
  title: 'By token',
  description: 'movements by token and currency: in, out and net quantity and value, then TOTAL value rows',
  columns: TOKEN_COLUMNS,
};

interface MonthGroup {
  /** Protocol and category `null` when the transaction has none (never confused with a name). */
  keys: [month: string, protocol: string | null, category: string | null, currency: string];
  count: number;
  value: DecimalSum;
  fees: DecimalSum;
}

interface TokenGroup {
  keys: [token: string, currency: string];
  inQuantity: DecimalSum;
  outQuantity: DecimalSum;
  inValue: DecimalSum;
  outValue: DecimalSum;
}

/**
 * Orders rows by their key tuples, by UTF-16 code units (locale-independent); a `null` key (no
 * protocol, no category) after every name.
 */
function byKeys(a: { keys: readonly (string | null)[] }, b: { keys: readonly (string | null)[] }): number {
  for (let i = 0; i < a.keys.length; i++) {
    const x = a.keys[i] as string | null;
    const y = b.keys[i] as string | null;
    if (x === y) continue;
    if (x === null) return 1;
    if (y === null) return -1;
    return x < y ? -1 : 1;
  }
  return 0;
}

/** Money columns of the summaries: their header names the currency when the table has only one. */
const MONEY_KEYS = new Set(['value', 'fees', 'in_value', 'out_value', 'net_value']);

/**
 * The table of `rows` under `spec`, its money headers naming the one currency of the rows (else
 * `(in the row's currency)`), and every number column sized to its widest cell, totals included.
 */
function source(spec: TableSpec, rows: readonly Row[]): TableSource {
  const currencyAt = spec.columns.findIndex((column) => column.key === 'currency');
  const currencies = new Set(rows.map((row) => row[currencyAt] ?? ''));
  const columns = spec.columns.map((column, index) => {
    if (column.kind === 'text') return column;
    const width = rows.reduce((widest, row) => Math.max(widest, numberWidth(row[index] ?? '')), 0);
    const header = MONEY_KEYS.has(column.key) ? moneyHeader(column.header, currencies) : column.header;
    return { ...column, header, width };
  });
  return {
    spec: { ...spec, columns },
    async *rows() {
      yield* rows;
    },
  };
}

/** An empty currency (none sent) shows as an empty cell. */
const currencyCell = (currency: string): Cell => (currency === '' ? null : currency);

/**
 * Accumulates transactions into the summary tables. Values are grouped per currency as well, so
 * amounts in different currencies are never added up: the value currency of a transaction (else
 * its fee currency) decides its row; a fee in another currency goes to that currency's row.
 */
export function createSummary(options: SummaryOptions): Summary {
  const withTables = options.tables !== false;
  const months = new Map<string, MonthGroup>();
  const tokens = new Map<string, TokenGroup>();

  function monthGroup(keys: MonthGroup['keys']): MonthGroup {
    const id = JSON.stringify(keys);
    let group = months.get(id);
    if (group === undefined) {
      group = { keys, count: 0, value: new DecimalSum(), fees: new DecimalSum() };
      months.set(id, group);
    }
    return group;
  }

  function tokenGroup(keys: TokenGroup['keys']): TokenGroup {
    const id = JSON.stringify(keys);
    let group = tokens.get(id);
    if (group === undefined) {
      group = {
        keys,
        inQuantity: new DecimalSum(),
        outQuantity: new DecimalSum(),
        inValue: new DecimalSum(),
        outValue: new DecimalSum(),
      };
      tokens.set(id, group);
    }
    return group;
  }

  /** The by-month rows as shown: money to its currency's minor unit (see `money.ts`). */
  function shownMonthGroups(): { keys: MonthGroup['keys']; count: number; value: string; fees: string }[] {
    return [...months.values()].sort(byKeys).map((group) => ({
      keys: group.keys,
      count: group.count,
      value: toMinorUnit(group.value.text(), currencyCell(group.keys[3])),
      fees: toMinorUnit(group.fees.text(), currencyCell(group.keys[3])),
    }));
  }

  /** Per currency, the sums of the by-month rows as shown (so a TOTAL row adds up on paper). */
  function totals(): Map<string, CurrencyTotal> {
    const byCurrency = new Map<string, CurrencyTotal>();
    for (const group of shownMonthGroups()) {
      const currency = group.keys[3];
      const total = byCurrency.get(currency) ?? { count: 0, value: '0', fees: '0' };
      byCurrency.set(currency, {
        count: total.count + group.count,
        value: addDecimal(total.value, group.value),
        fees: addDecimal(total.fees, group.fees),
      });
    }
    for (const [currency, total] of byCurrency) {
      byCurrency.set(currency, {
        ...total,
        value: toMinorUnit(total.value, currencyCell(currency)),
        fees: toMinorUnit(total.fees, currencyCell(currency)),
      });
    }
    return byCurrency;
  }

  function monthRows(): Row[] {
    const rows: Row[] = shownMonthGroups().map((group) => {
      const [month, protocol, category, currency] = group.keys;
      return [
        month,
        protocol,
        category,
        currencyCell(currency),
        String(group.count),
        group.value,
        group.fees,
      ];
    });
    const byCurrency = totals();
    if (byCurrency.size === 0) byCurrency.set('', { count: 0, value: '0', fees: '0' });
    for (const currency of [...byCurrency.keys()].sort()) {
      const total = byCurrency.get(currency) as CurrencyTotal;
      rows.push([TOTAL, null, null, currencyCell(currency), String(total.count), total.value, total.fees]);
    }
    return rows;
  }

  function tokenRows(): Row[] {
    const groups = [...tokens.values()].sort(byKeys);
    const totals = new Map<string, { inValue: string; outValue: string }>();
    const rows: Row[] = groups.map((group) => {
      const [token, currency] = group.keys;
      const money = (amount: string) => toMinorUnit(amount, currencyCell(currency));
      const inValue = money(group.inValue.text());
      const outValue = money(group.outValue.text());
      const total = totals.get(currency) ?? { inValue: '0', outValue: '0' };
      totals.set(currency, {
        inValue: addDecimal(total.inValue, inValue),
        outValue: addDecimal(total.outValue, outValue),
      });
      return [
        token,
        currencyCell(currency),
        group.inQuantity.text(),
        group.outQuantity.text(),
        subtractDecimal(group.inQuantity.text(), group.outQuantity.text()),
        inValue,
        outValue,
        money(subtractDecimal(inValue, outValue)),
      ];
    });
    for (const currency of [...totals.keys()].sort()) {
      const total = totals.get(currency) as { inValue: string; outValue: string };
      const money = (amount: string) => toMinorUnit(amount, currencyCell(currency));
      rows.push([
        TOTAL,
        currencyCell(currency),
        null,
        null,
        null,
        money(total.inValue),
        money(total.outValue),
        money(subtractDecimal(total.inValue, total.outValue)),
      ]);
    }
    return rows;
  }

  return {
    add(tx) {
      // Without tables, one group per currency: its sums are the totals (see `totals`).
      const month = withTables
        ? wallClock(Date.parse(tx.date), options.timeZone).toISOString().slice(0, 7)
        : '';
      const protocol = withTables ? tx.protocol : null;
      const category = withTables ? tx.category : null;
      const currency = tx.valueCurrency ?? tx.feeCurrency ?? '';
      const main = monthGroup([month, protocol, category, currency]);
      main.count += 1;
      // Each amount is rounded once, as the transactions report shows it; sums add the rounded amounts.
      // An amount sent without a currency counts (and is rounded) in the currency of its row.
      const value = moneyCell(tx.valueAmount, currencyCell(currency));
      if (value !== null) main.value.add(value);
      if (tx.feeAmount !== null) {
        const feeGroup =
          tx.feeCurrency === null || tx.feeCurrency === currency
            ? main
            : monthGroup([month, protocol, category, tx.feeCurrency]);
        feeGroup.fees.add(toMinorUnit(tx.feeAmount, currencyCell(feeGroup.keys[3])));
      }
      if (!withTables) return;
      for (const movement of tx.movements) {
        const group = tokenGroup([movement.symbol, tx.valueCurrency ?? '']);
        const value = moneyCell(movement.value, tx.valueCurrency);
        if (signDecimal(movement.amount) < 0) {
          group.outQuantity.add(absDecimal(movement.amount));
          if (value !== null) group.outValue.add(absDecimal(value));
        } else {
          group.inQuantity.add(movement.amount);
          if (value !== null) group.inValue.add(value);
        }
      }
    },
    tables: () => (withTables ? [source(MONTH_SPEC, monthRows()), source(TOKEN_SPEC, tokenRows())] : []),
    totals,
  };
}
