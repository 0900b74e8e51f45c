import { describe, expect, it } from 'vitest';
import type { TableSpec } from '../../domain/table.ts';
import { parseExportRequest } from '../plan/request.ts';
import { moneyRounding } from './money-rounding.ts';
import { type ReadmeInput, readmeLines } from './readme.ts';

const column = { key: 'gain', header: 'Gain', kind: 'text' } as const;
const tables: TableSpec[] = [
  { name: 'transactions', title: 'Transactions', columns: [column] },
  {
    name: 'gains',
    title: 'Gains',
    columns: [column],
    rounding: { currency: 'USD', minorUnit: 2, exact: 'gains_exact' },
  },
  { name: 'gains_exact', title: 'Gains (exact)', columns: [column], csvOnly: true },
  {
    name: 'gains_summary',
    title: 'Gains summary',
    columns: [column],
    rounding: { currency: 'USD', minorUnit: 2, exact: 'gains_summary_exact' },
  },
];

function input(formats: ('csv' | 'xlsx')[]): ReadmeInput {
  const request = parseExportRequest({ profile: 'acme', period: '2025', formats });
  const baseName = 'acme_2025';
  return {
    request,
    runId: 'run',
    generator: { name: 'pbs-export', version: '0' },
    createdAt: '2026-01-01T00:00:00.000Z',
    apiBase: 'http://127.0.0.1:1',
    demo: false,
    windows: 1,
    shards: 1,
    tables,
    baseName,
    money: moneyRounding(tables, formats.includes('csv') ? (name) => `${baseName}_${name}.csv` : null),
  };
}

describe('readmeLines: the rounding of the gains money', () => {
  it('names the rounded tables, their currency and the exact figures’ files', () => {
    const lines = readmeLines(input(['csv', 'xlsx']));
    const at = lines.findIndex(([topic]) => topic === 'Gains money');
    expect(lines.slice(at, at + 2)).toEqual([
      [
        'Gains money',
        `"Gains", "Gains summary": each line's money is rounded once, half to even, to the minor unit of USD; a disposal's gain is its rounded proceeds minus its rounded cost; every TOTAL is the sum of the rounded lines shown, so a SUM() of a column equals it to the cent.`,
      ],
      [
        '',
        'The exact, unrounded figures are in acme_2025_gains_exact.csv, acme_2025_gains_summary_exact.csv (same rows, same order), for machines.',
      ],
    ]);
  });

  it('says the exact figures were not written without CSV, and says nothing with no rounded table', () => {
    const lines = readmeLines(input(['xlsx']));
    const at = lines.findIndex(([topic]) => topic === 'Gains money');
    expect(lines[at + 1]).toEqual([
      '',
      'The exact, unrounded figures come as CSV files (*_exact.csv), which this run did not write.',
    ]);
    const plain = readmeLines({ ...input(['csv']), tables: tables.slice(0, 1), money: null });
    expect(plain.some(([topic]) => topic === 'Gains money')).toBe(false);
  });
});

describe('readmeLines: the Files list (issue 39, item 12)', () => {
  it('lists the tax pack and the journal in every format beside the tables, the workbook and the snapshot', () => {
    const request = parseExportRequest({
      profile: 'acme',
      period: '2025',
      reports: ['gains', 'journal'],
      gains: { taxRules: 'us' },
      journal: { formats: ['csv', 'beancount', 'hledger', 'quickbooks', 'xero'] },
    });
    const lines = readmeLines({ ...input(['csv', 'xlsx']), request, taxPack: true });
    const at = lines.findIndex(([topic]) => topic === 'Files');
    const end = lines.findIndex(([topic], i) => i > at && topic !== '');
    const files = lines.slice(at + 1, end).map(([, text]) => text.split(':')[0]);
    expect(files).toEqual(
      expect.arrayContaining([
        'acme_2025_tax_pack.pdf',
        'acme_2025_journal.beancount',
        'acme_2025_journal.hledger',
        'acme_2025_journal-quickbooks.csv',
        'acme_2025_journal-xero-1.csv (-2, -3, … when split)',
      ]),
    );
    expect(lines.slice(at + 1, end).some(([, text]) => text.includes('tax pack'))).toBe(true);
  });

  it('names the DATEV Buchungsstapel, and no tax pack when the run writes none', () => {
    const request = parseExportRequest({
      profile: 'acme',
      period: '2025',
      reports: ['gains', 'journal'],
      gains: { taxRules: 'us' },
      journal: { formats: ['datev'], settings: { datev: { consultantNumber: 1001, clientNumber: 1 } } },
    });
    const text = readmeLines({ ...input(['csv', 'xlsx']), request, taxPack: false })
      .map(([, line]) => line)
      .join('\n');
    expect([text.includes('EXTF_Buchungsstapel_'), text.includes('_tax_pack.pdf')]).toEqual([true, false]);
  });
});
