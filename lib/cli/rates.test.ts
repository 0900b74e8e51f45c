import { mkdtemp, open, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { parseRatesFlags, readRates, withRates } from './rates.ts';

// HMRC's monthly XML layout (see lib/fx/README.md).
const MAY = `<exchangeRateMonthList Period="01/May/2024 to 31/May/2024"><exchangeRate><countryName>United States</countryName><countryCode>US</countryCode><currencyName>Dollar</currencyName><currencyCode>USD</currencyCode><rateNew>1.2522</rateNew></exchangeRate></exchangeRateMonthList>`;

describe('--rates', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-rates-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('returns each file with the source its value names, or none to detect it', () => {
    expect(parseRatesFlags(['hmrc:may.xml', 'ecb:/data/hist.zip', 'june.csv'])).toEqual([
      { path: 'may.xml', source: 'hmrc' },
      { path: '/data/hist.zip', source: 'ecb' },
      { path: 'june.csv' },
    ]);
  });

  it('records the source and each file with its sha256 in gains.rates, keeping the other gains fields', async () => {
    await writeFile(join(dir, 'may.xml'), MAY);
    const table = await readRates([{ path: join(dir, 'may.xml') }]);
    expect(withRates({ profile: 'demo', reports: ['gains'], gains: { taxRules: 'uk' } }, table)).toEqual({
      profile: 'demo',
      reports: ['gains'],
      gains: {
        taxRules: 'uk',
        rates: { source: 'hmrc', files: { 'may.xml': expect.stringMatching(/^[0-9a-f]{64}$/) } },
      },
    });
  });

  it('refuses --rates without the gains report, whose values are the only ones converted', async () => {
    await writeFile(join(dir, 'may.xml'), MAY);
    const table = await readRates([{ path: join(dir, 'may.xml') }]);
    expect(() => withRates({ profile: 'demo', reports: ['transactions'] }, table)).toThrow(
      '--rates: converts the values of the gains reports: add --report gains',
    );
  });

  it('refuses a file that cannot be read, or holds another source than said, naming --rates and the file', async () => {
    await writeFile(join(dir, 'may.xml'), MAY);
    const unreadable = readRates([{ path: join(dir, 'absent.xml') }]);
    await expect(unreadable).rejects.toThrow(ValidationError);
    await expect(unreadable).rejects.toThrow(`--rates: cannot read ${join(dir, 'absent.xml')}`);
    await expect(readRates([{ path: join(dir, 'may.xml'), source: 'ecb' }])).rejects.toThrow(
      '--rates: rates file may.xml: was given as ECB rates but holds HMRC rates',
    );
  });

  it('refuses a file larger than any rates file, naming it and the limit, without reading it whole', async () => {
    const huge = await open(join(dir, 'huge.csv'), 'w');
    await huge.truncate(1024 ** 3);
    await huge.close();
    await expect(readRates([{ path: join(dir, 'huge.csv') }])).rejects.toThrow(
      '--rates: rates file huge.csv: holds more than 32 MiB, the most a rates file may hold',
    );
  });
});
