import { describe, expect, it } from 'vitest';
import { ecbHistCsv, zerosZipBomb, zipOne } from '../../test/support/rates.ts';
import {
  conversionOn,
  convertAmount,
  loadRates,
  lookupRate,
  MissingRateError,
  parseRatesFile,
  RatesFileError,
} from './index.ts';

// Small copies in the published layouts, written by hand from the owners' files (lib/fx/README.md).
// eurofxref-hist.csv: newest first, a trailing comma on every line, N/A where not quoted.
const ECB_HIST_CSV = `Date,USD,JPY,BGN,CYP,GBP,
2024-03-28,1.0811,163.45,1.9558,N/A,0.85533,
2024-03-27,1.0824,163.79,1.9558,N/A,0.85755,
2024-03-26,1.0846,164.05,1.9558,N/A,0.85760,
2024-03-22,1.0823,164.09,1.9558,N/A,0.85795,
`;

// eurofxref.csv (the latest day): spaces after the commas, the day written out.
const ECB_DAILY_CSV = `Date, USD, JPY, BGN, CZK, GBP, \r\n02 April 2024, 1.0749, 163.25, 1.9558, 25.278, 0.85465, \r\n`;

// eurofxref-hist-90d.xml: a gesmes:Envelope, one Cube per day, one Cube per currency.
const ECB_XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<gesmes:subject>Reference rates</gesmes:subject>
	<gesmes:Sender>
		<gesmes:name>European Central Bank</gesmes:name>
	</gesmes:Sender>
	<Cube>
		<Cube time='2024-04-02'>
			<Cube currency='USD' rate='1.0749'/>
			<Cube currency='GBP' rate='0.85465'/>
		</Cube>
		<Cube time='2024-03-28'>
			<Cube currency='USD' rate='1.0811'/>
			<Cube currency='GBP' rate='0.85533'/>
		</Cube>
	</Cube>
</gesmes:Envelope>
`;

// HMRC monthly XML (trade-tariff monthly_xml_2024-05.xml): one exchangeRate per country.
const HMRC_XML = `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/May/2024 to 31/May/2024">
  <exchangeRate>
    <countryName>Bosnia &amp; Herzegovina</countryName>
    <countryCode>BA</countryCode>
    <currencyName>Marka</currencyName>
    <currencyCode>BAM</currencyCode>
    <rateNew>2.2848</rateNew>
  </exchangeRate>
  <exchangeRate>
    <countryName>Ecuador</countryName>
    <countryCode>EC</countryCode>
    <currencyName>US Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>1.2522</rateNew>
  </exchangeRate>
  <exchangeRate>
    <countryName>Eurozone</countryName>
    <countryCode>EU</countryCode>
    <currencyName>Euro</currencyName>
    <currencyCode>EUR</currencyCode>
    <rateNew>1.1682</rateNew>
  </exchangeRate>
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>1.2522</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;

// HMRC monthly CSV with the XML's fields (monthly_csv_hmrc): the period written as in the XML.
const HMRC_CSV = `Period,countryName,countryCode,currencyName,currencyCode,rateNew
01/Jun/2024 to 30/Jun/2024,Eurozone,EU,Euro,EUR,1.1741
01/Jun/2024 to 30/Jun/2024,United States,US,Dollar,USD,1.2691
`;

// The Trade Tariff page's monthly CSV: territories quoted as one list, ISO days.
const HMRC_TARIFF_CSV = `Country/Territories,Currency,Currency Code,Currency Units per £1,Start date,End date
"EC,SV,US",Dollar,USD,1.2766,2024-07-01,2024-07-31
"AT,BE,DE",Euro,EUR,1.1834,2024-07-01,2024-07-31
`;

const file = (name: string, text: string, source?: 'ecb' | 'hmrc') => ({
  name,
  bytes: Buffer.from(text, 'utf8'),
  ...(source ? { source } : {}),
});

describe('parseRatesFile', () => {
  it('reads the ECB history CSV: every day, N/A left out, rates as published', () => {
    const { parsed } = parseRatesFile(file('eurofxref-hist.csv', ECB_HIST_CSV));
    expect(parsed.format).toBe('ecb-hist-csv');
    expect(parsed.periods.map((period) => period.first)).toEqual([
      '2024-03-28',
      '2024-03-27',
      '2024-03-26',
      '2024-03-22',
    ]);
    const day = parsed.periods[2];
    expect(Object.fromEntries(day?.rates ?? [])).toEqual({
      USD: '1.0846',
      JPY: '164.05',
      BGN: '1.9558',
      GBP: '0.85760',
    });
  });

  it('reads the ECB daily CSV with its written-out day', () => {
    const { parsed } = parseRatesFile(file('eurofxref.csv', ECB_DAILY_CSV));
    expect(parsed.periods).toEqual([
      {
        first: '2024-04-02',
        last: '2024-04-02',
        rates: new Map([
          ['USD', '1.0749'],
          ['JPY', '163.25'],
          ['BGN', '1.9558'],
          ['CZK', '25.278'],
          ['GBP', '0.85465'],
        ]),
      },
    ]);
  });

  it('reads the ECB XML envelope', () => {
    const { parsed } = parseRatesFile(file('eurofxref-hist-90d.xml', ECB_XML));
    expect(parsed.periods.map((period) => [period.first, period.rates.get('GBP')])).toEqual([
      ['2024-04-02', '0.85465'],
      ['2024-03-28', '0.85533'],
    ]);
  });

  it('reads the ECB history CSV out of its ZIP archive', () => {
    const zip = zipOne('eurofxref-hist.csv', Buffer.from(ECB_HIST_CSV));
    const { parsed, info } = parseRatesFile({ name: 'eurofxref-hist.zip', bytes: zip });
    expect(parsed.periods).toHaveLength(4);
    expect(info.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("reads HMRC's monthly XML as one month, a currency of several countries once", () => {
    const { parsed } = parseRatesFile(file('monthly_xml_2024-05.xml', HMRC_XML));
    expect(parsed.periods).toEqual([
      {
        first: '2024-05-01',
        last: '2024-05-31',
        rates: new Map([
          ['BAM', '2.2848'],
          ['USD', '1.2522'],
          ['EUR', '1.1682'],
        ]),
      },
    ]);
  });

  it("reads both of HMRC's monthly CSV layouts", () => {
    const hmrc = parseRatesFile(file('monthly_csv_hmrc_2024-06.csv', HMRC_CSV)).parsed;
    const tariff = parseRatesFile(file('monthly_csv_2024-07.csv', HMRC_TARIFF_CSV)).parsed;
    expect([
      hmrc.format,
      hmrc.periods[0]?.first,
      hmrc.periods[0]?.last,
      hmrc.periods[0]?.rates.get('USD'),
    ]).toEqual(['hmrc-csv', '2024-06-01', '2024-06-30', '1.2691']);
    expect([tariff.format, tariff.periods[0]?.first, tariff.periods[0]?.rates.get('EUR')]).toEqual([
      'hmrc-tariff-csv',
      '2024-07-01',
      '1.1834',
    ]);
  });

  it('refuses a file whose content is not the source it was given as, naming the file', () => {
    expect(() => parseRatesFile(file('rates.xml', HMRC_XML, 'ecb'))).toThrow(
      /rates file rates\.xml: was given as ECB rates but holds HMRC rates/,
    );
  });

  it('refuses a rate that is not a positive decimal, naming the file, line and currency', () => {
    const broken = ECB_HIST_CSV.replace('1.0824', '1,0824');
    expect(() => parseRatesFile(file('hist.csv', broken))).toThrow(RatesFileError);
    expect(() => parseRatesFile(file('hist.csv', broken))).toThrow(
      /line 3: more values than the header names/,
    );
    expect(() => parseRatesFile(file('hist.csv', ECB_HIST_CSV.replace('1.0824', '-1.0824')))).toThrow(
      /rates file hist\.csv: line 3: USD "-1\.0824" is not a positive rate/,
    );
  });

  it("names the file's own line of a bad rate, a blank line and a territory list broken over two lines counted", () => {
    const broken = `Country/Territories,Currency,Currency Code,Currency Units per £1,Start date,End date
"EC,SV,
US",Dollar,USD,1.2766,2024-07-01,2024-07-31

"AT,BE,DE",Euro,EUR,-1.1834,2024-07-01,2024-07-31
`;
    expect(() => parseRatesFile(file('july.csv', broken))).toThrow(
      /rates file july\.csv: line 5: EUR has no currency code and positive rate/,
    );
  });

  it('refuses a quote that is not closed, naming the file and the line it opens on, rather than read the rest as one cell', () => {
    const open = HMRC_TARIFF_CSV.replace('"AT,BE,DE"', '"AT,BE,DE');
    expect(() => parseRatesFile(file('july.csv', open))).toThrow(
      'rates file july.csv: line 3, field 1: a quote opened on this line is not closed before the end of the file',
    );
  });

  it('refuses one currency published twice with different rates in one HMRC month', () => {
    const twice = HMRC_XML.replace(
      '<rateNew>1.2522</rateNew>\n  </exchangeRate>\n</',
      '<rateNew>1.2523</rateNew>\n  </exchangeRate>\n</',
    );
    expect(() => parseRatesFile(file('may.xml', twice))).toThrow(
      /USD is published as 1\.2522 and as 1\.2523/,
    );
  });

  it('refuses a file in none of the published layouts', () => {
    expect(() => parseRatesFile(file('rates.json', '{"USD": 1.2}'))).toThrow(/none of the published layouts/);
  });
});

describe('parseRatesFile with a size limit', () => {
  it('refuses a ZIP whose entry says it inflates past the limit (a 1 GiB bomb), naming the file and the limit, before inflating it', () => {
    const bomb = zerosZipBomb('eurofxref-hist.csv', 1024);
    expect(bomb.length).toBeLessThan(1.1 * 1024 * 1024);
    expect(() => parseRatesFile({ name: 'eurofxref-hist.zip', bytes: bomb })).toThrow(
      new RatesFileError(
        'eurofxref-hist.zip',
        'the entry eurofxref-hist.csv says it inflates to 1 GiB, more than 32 MiB, the most a rates file may hold: no published rates file is that large',
      ),
    );
  });

  it('stops inflating a ZIP whose entry hides its size once the output passes the limit', () => {
    const bomb = zerosZipBomb('eurofxref-hist.csv', 64, 2 * 1024 * 1024);
    expect(() => parseRatesFile({ name: 'eurofxref-hist.zip', bytes: bomb })).toThrow(
      'rates file eurofxref-hist.zip: the entry eurofxref-hist.csv inflates to more than 32 MiB, the most a rates file may hold',
    );
  });

  it('takes another limit, for an archive and a plain file alike', () => {
    const csv = Buffer.from(ecbHistCsv());
    const zip = zipOne('eurofxref-hist.csv', csv);
    expect(parseRatesFile({ name: 'hist.zip', bytes: zip }, { maxBytes: csv.length }).info.format).toBe(
      'ecb-hist-csv',
    );
    expect(() => parseRatesFile({ name: 'hist.zip', bytes: zip }, { maxBytes: csv.length - 1 })).toThrow(
      `rates file hist.zip: the entry eurofxref-hist.csv says it inflates to ${(csv.length / 1024).toFixed(1)} KiB, more than`,
    );
    expect(() => parseRatesFile(file('hist.csv', ECB_HIST_CSV), { maxBytes: 100 })).toThrow(
      `rates file hist.csv: is ${ECB_HIST_CSV.length} bytes, more than 100 bytes, the most a rates file may hold`,
    );
  });
});

describe('lookupRate', () => {
  const ecb = loadRates([file('hist.csv', ECB_HIST_CSV), file('daily.xml', ECB_XML)]);

  it('takes the ECB rate published on the day', () => {
    expect(lookupRate(ecb, 'USD', '2024-03-27')).toEqual({
      currency: 'USD',
      perBase: '1.0824',
      of: '2024-03-27',
    });
  });

  it('takes the latest earlier ECB publication on a weekend or holiday (Easter 2024: Friday to Monday)', () => {
    expect(
      ['2024-03-23', '2024-03-24', '2024-03-29', '2024-04-01'].map((day) => lookupRate(ecb, 'GBP', day).of),
    ).toEqual(['2024-03-22', '2024-03-22', '2024-03-28', '2024-03-28']);
  });

  it('merges the ECB history and a daily file that repeats one of its days with the same rates', () => {
    expect(ecb.periods.map((period) => period.first)).toEqual([
      '2024-03-22',
      '2024-03-26',
      '2024-03-27',
      '2024-03-28',
      '2024-04-02',
    ]);
  });

  it('fails after the last ECB day, naming the day and currency, rather than reuse an old rate', () => {
    expect(() => lookupRate(ecb, 'USD', '2024-04-03')).toThrow(MissingRateError);
    expect(() => lookupRate(ecb, 'USD', '2024-04-03')).toThrow(
      'gains.rates: no rate for USD on 2024-04-03: the ECB rates given end on 2024-04-02',
    );
  });

  it('fails when the ECB rates have a gap longer than the fallback allows', () => {
    const gap = loadRates([
      file('hist.csv', ECB_HIST_CSV.replace('2024-03-26', '2024-03-12').replace('2024-03-22', '2024-03-11')),
    ]);
    expect(() => lookupRate(gap, 'USD', '2024-03-20')).toThrow(
      /no rate for USD on 2024-03-20: the ECB rates given have no publication day in the 7 days up to it/,
    );
  });

  it('fails naming the currency on a day it was not quoted (N/A)', () => {
    expect(() => lookupRate(ecb, 'CYP', '2024-03-27')).toThrow(
      'gains.rates: no rate for CYP on 2024-03-27: the ECB rates of 2024-03-27 have none for CYP',
    );
  });

  it("takes HMRC's rate of the day's month, and fails for a month no file covers", () => {
    const hmrc = loadRates([file('may.xml', HMRC_XML), file('june.csv', HMRC_CSV)]);
    expect(lookupRate(hmrc, 'USD', '2024-06-30')).toEqual({
      currency: 'USD',
      perBase: '1.2691',
      of: '2024-06-01 to 2024-06-30',
    });
    expect(() => lookupRate(hmrc, 'USD', '2024-07-01')).toThrow(
      'gains.rates: no rate for USD on 2024-07-01: no HMRC monthly rates file given covers 2024-07',
    );
  });

  it('refuses files of two sources in one run', () => {
    expect(() => loadRates([file('may.xml', HMRC_XML), file('hist.csv', ECB_HIST_CSV)])).toThrow(
      /rates file hist\.csv: holds ECB rates, but may\.xml holds HMRC rates/,
    );
  });

  it('refuses two files that publish different rates for one day', () => {
    expect(() =>
      loadRates([file('hist.csv', ECB_HIST_CSV), file('daily.xml', ECB_XML.replace("'1.0811'", "'1.0812'"))]),
    ).toThrow(/USD on 2024-03-28 is 1\.0812 here, 1\.0811 in another file/);
  });
});

describe('convertAmount', () => {
  it('converts USD to GBP through the euro: value ÷ USD per EUR × GBP per EUR, exact to 18 places', () => {
    const ecb = loadRates([file('hist.csv', ECB_HIST_CSV)]);
    const conversion = conversionOn(ecb, 'USD', 'GBP', '2024-03-27');
    // 1000 × 0.85755 / 1.0824, worked out separately (Python's decimal module, 60 digits, half even)
    expect(convertAmount('1000', conversion)).toBe('792.267184035476718404');
  });

  it("converts USD to GBP at HMRC's rate (units per £1): value ÷ rate", () => {
    const hmrc = loadRates([file('may.xml', HMRC_XML)]);
    // 1252.2 / 1.2522 = 1000 exactly.
    expect(convertAmount('1252.2', conversionOn(hmrc, 'USD', 'GBP', '2024-05-15'))).toBe('1000');
  });
});
