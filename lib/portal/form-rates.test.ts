import { describe, expect, it } from 'vitest';
import { parseExportRequest } from '../export/plan/request.ts';
import { FIELDS, issuesByField, requestFromForm } from './form.ts';

describe('requestFromForm with the filing currency and the rates source', () => {
  it('returns gains.currency and gains.rates.source of a UK request, which the schema accepts', () => {
    const request = requestFromForm('demo', {
      [FIELDS.periodFrom]: ['2024-04-06'],
      [FIELDS.periodTo]: ['2025-04-05'],
      [FIELDS.reports]: ['gains'],
      [FIELDS.formats]: ['csv'],
      [FIELDS.taxRules]: ['uk'],
      [FIELDS.currency]: ['GBP'],
      [FIELDS.ratesSource]: ['hmrc'],
    });

    expect(request.gains).toEqual({ taxRules: 'uk', currency: 'GBP', rates: { source: 'hmrc' } });
    expect(parseExportRequest(request).gains).toMatchObject({ currency: 'GBP', rates: { source: 'hmrc' } });
  });

  it('leaves both out when blank: the rules’ currency, no conversion', () => {
    const request = requestFromForm('demo', {
      [FIELDS.period]: ['2024'],
      [FIELDS.reports]: ['gains'],
      [FIELDS.formats]: ['csv'],
      [FIELDS.taxRules]: ['de'],
      [FIELDS.currency]: [''],
      [FIELDS.ratesSource]: [''],
    });

    expect(request.gains).toEqual({ taxRules: 'de' });
    expect(parseExportRequest(request).gains).toMatchObject({ currency: 'EUR' });
    expect(parseExportRequest(request).gains?.rates).toBeUndefined();
  });
});

describe('issuesByField with the rates fields', () => {
  it('places the refusals of gains.rates and gains.currency beside their fields', () => {
    const placed = issuesByField([
      { field: 'gains.rates', reason: 'no ECB rates files are kept yet' },
      { field: 'gains.rates.source', reason: 'invalid option' },
      { field: 'gains.currency', reason: 'expected an ISO 4217 currency code such as "GBP"' },
    ]);

    expect(placed.get(FIELDS.ratesSource)).toEqual(['no ECB rates files are kept yet', 'invalid option']);
    expect(placed.get(FIELDS.currency)).toEqual(['expected an ISO 4217 currency code such as "GBP"']);
    expect(placed.has('')).toBe(false);
  });
});
