/**
 * The US reports beside Form 8949: the allocation statement of 1 January 2025 (Rev. Proc. 2024-28
 * asks the taxpayer to keep it) and the Schedule 1 (Form 1040) line of digital assets received as
 * ordinary income (line 8v). Sources: README.md in lib/gains ("Form 8949 and Schedule D (`us`)").
 */
import {
  type Big,
  type Column,
  compareText,
  type Row,
  type TableSource,
  type TableSpec,
  ZERO,
} from '../../../domain/index.ts';
import { COVERS_COLUMN, type Coverage } from '../../coverage.ts';
import { EXACT_MONEY, type GainsMoney, roundIncome } from '../../rounding.ts';
import { TOTAL } from '../../tax-summary.ts';
import { localDate } from '../../tax-year.ts';
import type { AllocationLine, GainsResult, IncomeLine } from '../../types.ts';

const textColumn = (key: string, header: string, description: string): Column => ({
  key,
  header,
  kind: 'text',
  description,
});

const SOURCE_WORDS: Readonly<Record<AllocationLine['source'], string>> = {
  'own-units': "the wallet's own units of this lot (its records)",
  reallocated: "basis a sale from another wallet left unused, for units whose own lot's basis that sale used",
  'account-order': "the wallet's holding filled from the pool in consumption order (account-order rule)",
  unclaimed: 'basis no unit claims, kept by the wallet that acquired the lot',
  uncovered: 'units held without any unused basis left: they dispose at a zero basis',
};

/** Spec of the allocation statement. */
export function allocationSpec(timeZone: string, money: GainsMoney = EXACT_MONEY): TableSpec {
  return {
    name: 'basis-allocation-2025',
    title: 'Basis allocation 2025',
    description:
      'the allocation of the unused basis to each wallet (account) on 1 January 2025 (Rev. Proc. 2024-28): per wallet and token the units, their acquisition dates and the basis assigned, with a TOTAL row per wallet and token',
    columns: [
      textColumn('account', 'Wallet (account)', 'the wallet or account the units are in on 1 January 2025'),
      textColumn('token', 'Token', 'the digital asset'),
      { key: 'units', header: 'Units', kind: 'decimal', exact: true, description: 'exact units' },
      {
        key: 'date_acquired',
        header: `Date acquired (${timeZone})`,
        kind: 'text',
        description: 'the acquisition date of the lot the basis comes from (empty: no basis left)',
      },
      {
        key: 'basis',
        header: money.header('Basis'),
        kind: 'decimal',
        description: 'the basis assigned to these units, rounded once; the TOTAL is the sum of the rows',
      },
      textColumn('acquired_tx_id', 'Acquiring transaction', 'the transaction that opened the lot'),
      textColumn('how', 'How allocated', 'why the wallet holds this basis (see the gains README)'),
    ],
  };
}

/**
 * The allocation statement: per wallet and token (sorted by id, for reading) one row per lot part
 * with its units, acquisition date and basis, then a TOTAL row of the wallet's units and basis.
 * Empty when the run did not cross 1 January 2025.
 */
export function allocationTable(
  result: Pick<GainsResult, 'allocation' | 'options'>,
  money: GainsMoney = EXACT_MONEY,
): TableSource {
  const timeZone = result.options.timeZone;
  return {
    spec: allocationSpec(timeZone, money),
    async *rows() {
      const groups = new Map<string, AllocationLine[]>();
      for (const line of result.allocation) {
        const key = `${line.account}\u0000${line.token}`;
        groups.set(key, [...(groups.get(key) ?? []), line]);
      }
      const keys = [...groups.keys()].sort(compareText);
      for (const key of keys) {
        const lines = groups.get(key) ?? [];
        let units = ZERO;
        let basis = ZERO;
        for (const line of lines) {
          const shown = money.show(line.cost);
          units = units.plus(line.quantity);
          basis = basis.plus(shown);
          yield [
            line.account,
            line.token,
            line.quantity,
            line.acquiredAt === null ? null : localDate(line.acquiredAt, timeZone),
            shown,
            line.acquiredTxId,
            SOURCE_WORDS[line.source],
          ] satisfies Row;
        }
        const [account, token] = key.split('\u0000') as [string, string];
        yield [account, token, units.toFixed(), null, money.showBig(basis), null, TOTAL];
      }
    },
  };
}

/** The Schedule 1 line of digital assets received as income, line 8v from the 2024 form on. */
export function schedule1Line(taxYear: number): { line: string; caption: string } {
  return taxYear >= 2024
    ? { line: '8v', caption: 'Digital assets received as ordinary income not reported elsewhere' }
    : { line: '8z', caption: 'Other income (list type and amount): digital assets received as income' };
}

/** Schedule 1's income line, built receipt by receipt. */
export interface Schedule1 {
  add(line: IncomeLine): void;
  rows(money?: GainsMoney): Row[];
}

/**
 * Per tax year, the amount for Schedule 1 line 8v: every income receipt (staking, rewards and the
 * other income categories) at its value on receipt, each rounded once as the Income report shows it,
 * with one row per category and token that adds up to it.
 */
export function createSchedule1(coverage: Coverage): Schedule1 {
  const years = new Map<string, Map<string, { receipts: number; value: Big }>>();
  return {
    add(line) {
      const year = years.get(line.taxYear) ?? new Map();
      years.set(line.taxYear, year);
      const key = `${line.category}\u0000${line.token}`;
      const group = year.get(key) ?? { receipts: 0, value: ZERO };
      group.receipts += 1;
      group.value = group.value.plus(line.value);
      year.set(key, group);
    },
    rows(money = EXACT_MONEY) {
      const rows: Row[] = [];
      for (const label of [...years.keys()].sort(compareText)) {
        const year = years.get(label) ?? new Map();
        const { line, caption } = schedule1Line(Number(label.slice(0, 4)));
        const covers = coverage.of(label).text;
        let total = ZERO;
        let receipts = 0;
        for (const key of [...year.keys()].sort(compareText)) {
          const group = year.get(key) as { receipts: number; value: Big };
          const [category, token] = key.split('\u0000') as [string, string];
          rows.push([
            label,
            line,
            `${category}: ${token}`,
            String(group.receipts),
            money.showBig(group.value),
            covers,
          ]);
          total = total.plus(group.value);
          receipts += group.receipts;
        }
        rows.push([label, line, `${TOTAL}: ${caption}`, String(receipts), money.showBig(total), covers]);
      }
      return rows;
    },
  };
}

/** Spec of the Schedule 1 table. */
export function schedule1Spec(money: GainsMoney = EXACT_MONEY): TableSpec {
  return {
    name: 'schedule-1',
    title: 'Schedule 1',
    description:
      'Schedule 1 (Form 1040), line 8v: digital assets received as ordinary income not reported elsewhere (staking and other rewards at their value on receipt), per tax year, with the categories and tokens that add up to it; income of a trade or business goes on Schedule C instead',
    columns: [
      textColumn('tax_year', 'Tax year', 'the calendar year'),
      textColumn('line', 'Line', 'the Schedule 1 line (8v from the 2024 form on)'),
      textColumn('item', 'Item', 'a category and token, or the TOTAL that goes on the line'),
      { key: 'receipts', header: 'Receipts', kind: 'integer', description: 'income receipts' },
      {
        key: 'amount',
        header: money.header('Amount'),
        kind: 'decimal',
        description: 'value on receipt, each receipt rounded once; the TOTAL is the sum of the rows above it',
      },
      COVERS_COLUMN,
    ],
  };
}

/** The Schedule 1 table of a finished run (every receipt rounded as `money` shows it). */
export function schedule1Table(result: GainsResult, money: GainsMoney, coverage: Coverage): TableSource {
  return {
    spec: schedule1Spec(money),
    async *rows() {
      const schedule = createSchedule1(coverage);
      for (const line of result.income) schedule.add(roundIncome(line, money));
      yield* schedule.rows(money);
    },
  };
}

/** The US reports of a finished run beside Form 8949 (which needs the spooled lines: see index.ts). */
export function usReports(result: GainsResult, money: GainsMoney, coverage: Coverage): TableSource[] {
  return [allocationTable(result, money), schedule1Table(result, money, coverage)];
}
