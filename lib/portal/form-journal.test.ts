import { describe, expect, it } from 'vitest';
import { parseExportRequest } from '../export/plan/request.ts';
import { FIELDS, requestFromForm } from './form.ts';

describe('requestFromForm with the Journal entries box', () => {
  it('returns a request for the journal with the gains fields of the form, which the schema accepts', () => {
    const request = requestFromForm('acme', {
      [FIELDS.period]: ['2025-10'],
      [FIELDS.reports]: ['journal'],
      [FIELDS.formats]: ['csv'],
      [FIELDS.method]: ['hifo'],
    });

    expect(request).toMatchObject({ reports: ['journal'], gains: { method: 'hifo' } });
    expect(parseExportRequest(request)).toMatchObject({
      reports: ['gains', 'journal'],
      gains: { method: 'hifo' },
      journal: { formats: ['csv', 'beancount', 'hledger'] },
    });
  });
});
