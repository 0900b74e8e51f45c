/**
 * `us`: the United States' capital gains on digital assets. Units are identified by FIFO or
 * specific identification; the pools are universal before 1 January 2025 and wallet by wallet from
 * then on (Rev. Proc. 2024-28: wallets.ts, allocation.ts); long term after more than a year; figures
 * in USD. Its forms are Form 8949 with its Schedule D lines (form8949.ts), the allocation statement
 * of 1 January 2025 and Schedule 1 line 8v (reports.ts). Sources: README.md in lib/gains.
 */
import type { Row, TableSource, TableSpec } from '../../../domain/index.ts';
import type { PoolingRules, TaxRuleSet } from '../types.ts';
import { type BrokerReporting, type BrokerReportingByAccount, createForm8949 } from './form8949.ts';
import { allocationTable, createSchedule1, schedule1Spec, usReports } from './reports.ts';
import { createWalletSwitch } from './wallets.ts';

export { BROKER_REPORTING, type BrokerReporting, type BrokerReportingByAccount } from './form8949.ts';

/** One pool for the whole portfolio before 1 January 2025, one per wallet from then on. */
export const WALLET_FROM_2025: PoolingRules = {
  name: 'wallet-from-2025',
  words: 'one for the whole portfolio before 1 January 2025, one per account (wallet by wallet) from then on',
  perAccount: false,
  switch: createWalletSwitch,
};

const fixed = (spec: TableSpec, rows: () => Row[]): TableSource => ({
  spec,
  async *rows() {
    yield* rows();
  },
});

/** `us`: FIFO or specific identification, wallet by wallet from 2025, USD, Form 8949. */
export const US: TaxRuleSet = {
  id: 'us',
  words: 'United States (long term after more than a year; wallet by wallet from 2025)',
  defaults: { method: 'fifo', pooling: 'wallet-from-2025', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['fifo', 'lifo', 'hifo'],
      reason:
        'us rules identify units by FIFO or specific identification (fifo, lifo, hifo), not average cost (Treas. Reg. § 1.1012-1(j))',
    },
    pooling: {
      allowed: ['wallet-from-2025'],
      reason:
        'us rules pool universally before 1 January 2025 and wallet by wallet from then on (Rev. Proc. 2024-28)',
    },
    taxYearStart: { allowed: ['01-01'], reason: 'us rules use the calendar tax year' },
    longTermYears: {
      allowed: [1],
      reason: 'us rules make long term a holding of more than one year (26 U.S.C. § 1222)',
    },
  },
  timeZone: null,
  rounding: null,
  exchangeValue: 'own',
  disposalFee: 'proceeds',
  incomeFee: 'basis',
  currency: 'USD',
  poolings: [WALLET_FROM_2025],
  options: { brokerReporting: { why: 'it picks the box of the Form 8949 package' } },
  forms({ coverage, timeZone, gains }) {
    const form8949 = createForm8949({
      timeZone,
      reporting: (gains.brokerReporting as BrokerReporting | BrokerReportingByAccount | undefined) ?? 'none',
      coverage,
    });
    // Schedule 1 line 8v, from the income receipts as they are rounded.
    const schedule1 = createSchedule1(coverage);
    return {
      add: (line) => form8949.add(line),
      addIncome: (line) => schedule1.add(line),
      tables: ({ result, money, disposals }) => [
        ...form8949.tables(disposals, money),
        // The allocation statement of 1 January 2025, its basis rounded as `money` shows it.
        allocationTable(result, money),
        fixed(schedule1Spec(money), () => schedule1.rows(money)),
      ],
    };
  },
  reports: usReports,
};
