import { describe, expect, it } from 'vitest';
import { parseExportRequest } from '../export/index.ts';
import { applyPresentation, displayZone } from './render-options.ts';

const withGains = parseExportRequest({
  profile: 'demo',
  period: '2024',
  reports: ['transactions', 'gains'],
  gains: { longTermYears: 2 },
});

describe('applyPresentation', () => {
  it('applies the CSV dialect and formats over the snapshot request, keeping what was fetched', () => {
    const request = applyPresentation(withGains, {
      formats: ['csv'],
      csv: { decimalSeparator: ',', delimiter: ';' },
    });

    expect(request).toMatchObject({
      profile: 'demo',
      period: '2024',
      formats: ['csv'],
      csv: { decimalSeparator: ',', delimiter: ';' },
      reports: ['transactions', 'gains'],
      gains: { longTermYears: 2 },
    });
  });

  it("starts another rule set from its own defaults, not the snapshot's filled-in choices", () => {
    // The uk rules count London days: a snapshot to render under them was fetched in London's.
    const london = parseExportRequest({ ...withGains, timeZone: 'Europe/London' });
    const request = applyPresentation(london, { gains: { taxRules: 'uk', currency: 'USD' } });

    expect(request.gains).toMatchObject({ taxRules: 'uk', method: 'hmrc', taxYearStart: '04-06' });
  });

  it("refuses uk rules over a snapshot fetched in another zone's days, naming --time-zone", () => {
    const utc = parseExportRequest({ ...withGains, timeZone: 'UTC' });
    expect(() => applyPresentation(utc, { gains: { taxRules: 'uk', currency: 'USD' } })).toThrow(
      /^--time-zone: uk rules count the period and tax year in Europe\/London days/,
    );
  });

  it('drops the gains options with the gains report when --report leaves it out', () => {
    const request = applyPresentation(withGains, { reports: ['transactions'] });

    expect({ reports: request.reports, gains: request.gains }).toEqual({
      reports: ['transactions'],
      gains: undefined,
    });
  });

  it('refuses a report the snapshot holds no data for, naming --report', () => {
    const plain = parseExportRequest({ profile: 'demo', period: '2024' });

    expect(() => applyPresentation(plain, { reports: ['gains'] })).toThrow(
      /^--report: gains: render cannot add it/,
    );
  });
});

describe('displayZone', () => {
  it("keeps the snapshot's zone in the request and gives --time-zone as the zone of the dates shown", () => {
    const presentation = { timeZone: 'America/New_York' };

    expect({
      request: applyPresentation(withGains, presentation).timeZone,
      shown: displayZone(withGains, presentation),
      same: displayZone(withGains, { timeZone: withGains.timeZone }),
      none: displayZone(withGains, {}),
    }).toEqual({ request: 'UTC', shown: 'America/New_York', same: undefined, none: undefined });
  });

  it("refuses a zone that is not IANA's, naming --time-zone", () => {
    expect(() => displayZone(withGains, { timeZone: 'Nowhere/Zone' })).toThrow(
      /^--time-zone: expected an IANA time zone/,
    );
  });
});
