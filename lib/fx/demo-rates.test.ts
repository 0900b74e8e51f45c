import { describe, expect, it } from 'vitest';
import { ecbHistCsv, hmrcMonthXml } from '../../test/support/independent-tax/rates.ts';
import {
  demoRatesFiles,
  demoRatesNote,
  isDemoRatesFile,
  loadRates,
  lookupRate,
  parseRatesFile,
} from './index.ts';

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');

describe('demoRatesFiles', () => {
  it('names every file DEMO and gives files the published-layout parsers read as ECB and HMRC rates', () => {
    const files = demoRatesFiles();

    expect(files.every((file) => isDemoRatesFile(file.name) && file.name.startsWith('DEMO-'))).toBe(true);
    for (const file of files) expect(parseRatesFile(file).parsed.source).toBe(file.source);
    expect(files.filter((file) => file.source === 'ecb').map((file) => file.name)).toEqual([
      'DEMO-made-up_eurofxref-hist.csv',
    ]);
    expect(files.filter((file) => file.source === 'hmrc')).toHaveLength(48);
  });

  it('covers the demo data (2023 to 2025) and the 30 days after a UK tax year in both sources', () => {
    const files = demoRatesFiles();
    const ecb = loadRates(files.filter((file) => file.source === 'ecb'));
    const hmrc = loadRates(files.filter((file) => file.source === 'hmrc'));

    for (const day of ['2023-01-01', '2024-07-15', '2025-12-31']) {
      expect(lookupRate(ecb, 'USD', day).perBase).toMatch(/^1\.\d{4}$/);
      expect(lookupRate(hmrc, 'USD', day).perBase).toMatch(/^1\.\d{4}$/);
    }
  });

  it('holds the rates docs/tax-forms-demo.md was computed with (the independent cross-check writes the same files)', () => {
    const files = new Map(demoRatesFiles().map((file) => [file.name, text(file.bytes)]));

    expect(files.get('DEMO-made-up_eurofxref-hist.csv')).toBe(ecbHistCsv('2022-12-01', '2025-12-31'));
    expect(files.get('DEMO-made-up_monthly_xml_2024-05.xml')).toBe(hmrcMonthXml(2024, 5));
    expect(files.get('DEMO-made-up_monthly_xml_2022-01.xml')).toBe(hmrcMonthXml(2022, 1));
    expect(files.get('DEMO-made-up_monthly_xml_2025-12.xml')).toBe(hmrcMonthXml(2025, 12));
  });
});

describe('demoRatesNote', () => {
  it('says DEMO and not for filing when a run used DEMO rates files, and nothing for published ones', () => {
    const note = demoRatesNote({ 'DEMO-made-up_eurofxref-hist.csv': 'a'.repeat(64) });

    expect(note).toMatch(/DEMO rates, made up/);
    expect(note).toMatch(/not for filing/);
    expect(demoRatesNote({ 'eurofxref-hist.zip': 'b'.repeat(64) })).toBeNull();
    expect(demoRatesNote(undefined)).toBeNull();
  });
});
