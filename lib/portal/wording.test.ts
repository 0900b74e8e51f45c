import { describe, expect, it } from 'vitest';
import { describeFile, fileOrder } from './wording.ts';

/** The files of a us gains set as the export names them (see test/export/us-reports.test.ts). */
const US_SET = [
  'demo_2025_snapshot.ndjson.gz',
  'demo_2025_transactions.csv',
  'demo_2025_movements.csv',
  'demo_2025_summary_by_month.csv',
  'demo_2025_summary_by_token.csv',
  'demo_2025_disposals.csv',
  'demo_2025_gains_summary.csv',
  'demo_2025_income.csv',
  'demo_2025_holdings.csv',
  'demo_2025_gains_warnings.csv',
  'demo_2025_form-8949.csv',
  'demo_2025_schedule-d.csv',
  'demo_2025_basis-allocation-2025.csv',
  'demo_2025_schedule-1.csv',
  'demo_2025_disposals_exact.csv',
  'README.txt',
  'demo_2025.xlsx',
  'manifest.json',
];

describe('describeFile', () => {
  it('returns a description of its own for every file of a us gains set, none the generic one', () => {
    const generic = [describeFile('x.csv'), describeFile('x.bin')];

    expect(US_SET.filter((name) => generic.includes(describeFile(name)))).toEqual([]);
  });

  it('returns what the summaries hold: by month transactions, by token movements', () => {
    expect(describeFile('demo_2025_summary_by_month.csv')).toMatch(/^Transactions by month/);
    expect(describeFile('demo_2025_summary_by_token.csv')).toMatch(/^Movements by asset/);
  });

  it('describes the gains and tax summaries as what they are, not as movements by asset (issue 39, item 12)', () => {
    expect([
      describeFile('demo_2025_gains_summary.csv'),
      describeFile('demo_2024_tax_summary.csv'),
      describeFile('demo_2025_schedule-d.csv'),
    ]).toEqual([
      'Gains and losses totalled.',
      'The figures for the tax return.',
      'Schedule D lines: one per Form 8949 box, then lines 7, 15 and 16 (US).',
    ]);
  });
});

/**
 * Files of tax sets that `npm run demo`-style runs publish beside the us list above (walk-through
 * 2026-12-08: a uk/de run with rates, a run with adjustments, a journal run with Xero).
 */
const MORE_SET_FILES = [
  'demo_2025_reconciliation.csv',
  'demo_2025_reconciliation_movements.csv',
  'demo_2024_fx_conversions_exact.csv',
  'demo_2025_adjustments.csv',
  'demo_2025_journal-xero-accounts.csv',
  'demo_2025_journal-quickbooks-accounts.csv',
];

describe('describeFile of the reconciliation, conversion, adjustment and chart files', () => {
  it('returns a description of its own for each, none the generic one', () => {
    const generic = [describeFile('x.csv'), describeFile('x.bin')];

    expect(MORE_SET_FILES.filter((name) => generic.includes(describeFile(name)))).toEqual([]);
  });

  it('does not describe the reconciliation movements as the movements report, nor the conversions as exact twins', () => {
    const borrowed = [describeFile('demo_2025_movements.csv'), describeFile('demo_2025_disposals_exact.csv')];

    expect(MORE_SET_FILES.filter((name) => borrowed.includes(describeFile(name)))).toEqual([]);
  });
});

describe('describeFile of a journal set', () => {
  it('returns a description of its own for the journal CSV, Beancount and hledger files', () => {
    const generic = [describeFile('x.csv'), describeFile('x.bin')];
    const journal = [
      'demo_2025_journal.csv',
      'demo_2025_journal.beancount',
      'demo_2025_journal.hledger',
      'demo_2025_journal-quickbooks.csv',
      'demo_2025_journal-xero-1.csv',
      'EXTF_Buchungsstapel_20250101_20251231.csv',
      'demo_2025_EXTF_Buchungsstapel_20250101_20251231-2.csv',
    ];

    expect(journal.filter((name) => generic.includes(describeFile(name)))).toEqual([]);
  });
});

describe('fileOrder', () => {
  it('returns the workbook first, then the tax pack, the Read me, the reports and the manifest last', () => {
    const names = [
      'manifest.json',
      'demo_2025_income.csv',
      'README.txt',
      'demo_2025_tax_pack.pdf',
      'demo_2025.xlsx',
    ];

    expect([...names].sort((a, b) => fileOrder(a) - fileOrder(b))).toEqual([
      'demo_2025.xlsx',
      'demo_2025_tax_pack.pdf',
      'README.txt',
      'demo_2025_income.csv',
      'manifest.json',
    ]);
  });
});
