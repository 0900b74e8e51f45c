/**
 * `de`: Germany's private sales of cryptoassets (§ 23 EStG) and other services (§ 22 Nr. 3 EStG):
 * FIFO per wallet, the calendar year in Berlin's days, exempt after a year's holding, figures in
 * EUR, the fees of income receipts as expenses of the income; its summary is the Anlage SO lines
 * (anlage-so.ts). Sources: README.md in lib/gains.
 */
import type { TaxRuleSet } from '../types.ts';
import { createAnlageSoSummary } from './anlage-so.ts';

export { DE_SERVICES_LIMIT, deSaleLimit } from './anlage-so.ts';

/** `de`: FIFO, the calendar year, one year's holding, EUR, Anlage SO. */
export const DE: TaxRuleSet = {
  id: 'de',
  words: 'Germany (§ 23 EStG private sales, FIFO, exempt after a year)',
  defaults: { method: 'fifo', pooling: 'account', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['fifo'],
      reason:
        'de rules use FIFO (BMF-Schreiben of 6 March 2025 on Kryptowerte; § 23 Abs. 1 Satz 1 Nr. 2 EStG)',
    },
    taxYearStart: { allowed: ['01-01'], reason: 'the German tax year is the calendar year (§ 25 EStG)' },
    longTermYears: {
      allowed: [1],
      reason: 'de rules exempt sales more than one year after acquisition (§ 23 Abs. 1 Satz 1 Nr. 2 EStG)',
    },
  },
  timeZone: 'Europe/Berlin',
  rounding: null,
  exchangeValue: 'own',
  disposalFee: 'proceeds',
  incomeFee: 'expense',
  currency: 'EUR',
  summary: createAnlageSoSummary,
};
