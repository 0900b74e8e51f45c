import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../export/plan/request.ts';
import { parseCommandLine } from './args.ts';

const dir = mkdtempSync(join(tmpdir(), 'journal-args-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const requestOf = (argv: string[]) => {
  const command = parseCommandLine(argv, {});
  if (command.command !== 'run') throw new Error('not a run');
  return command.request;
};

describe('journal flags', () => {
  it('returns the journal block of --journal-format, --journal-rollup and --journal-chart', () => {
    const chart = join(dir, 'chart.json');
    writeFileSync(chart, JSON.stringify({ fee: { code: 'Expenses:Gas' } }));
    const request = requestOf([
      'run',
      '--period',
      '2025',
      '--report',
      'journal',
      '--journal-format',
      'hledger,csv',
      '--journal-rollup',
      '--journal-chart',
      chart,
    ]);
    expect(request).toMatchObject({
      reports: ['journal'],
      journal: { formats: ['hledger', 'csv'], rollup: true, chart: { fee: { code: 'Expenses:Gas' } } },
    });
    expect(parseExportRequest(request).journal?.chart.fee).toEqual({ code: 'Expenses:Gas' });
  });

  it('throws naming the journal field an unknown format or account kind is in', () => {
    expect(() =>
      parseExportRequest(
        requestOf(['run', '--period', '2025', '--report', 'journal', '--journal-format', 'csv,ods']),
      ),
    ).toThrow(/journal\.formats\[1\]: unknown journal format; expected one of csv, beancount, hledger/);
    const chart = join(dir, 'bad-chart.json');
    writeFileSync(chart, JSON.stringify({ bank: { code: '1200' } }));
    expect(() =>
      parseExportRequest(
        requestOf(['run', '--period', '2025', '--report', 'journal', '--journal-chart', chart]),
      ),
    ).toThrow(/journal\.chart\.bank: unknown account kind/);
  });

  it('throws naming --journal-chart for a file that cannot be read or is not JSON', () => {
    expect(() => requestOf(['run', '--journal-chart', join(dir, 'missing.json')])).toThrow(
      /--journal-chart: cannot read/,
    );
    const notJson = join(dir, 'chart.txt');
    writeFileSync(notJson, 'fee = 4970');
    expect(() => requestOf(['run', '--journal-chart', notJson])).toThrow(/--journal-chart: .* is not JSON/);
  });
});
