/**
 * `uk`: the United Kingdom's capital gains on cryptoassets. It matches by HMRC identification
 * (same day, 30 days, the section 104 pool: hmrc.ts, identification.ts), which reads the 30 days
 * after the period; its figures are in GBP in London's days and tax years from 6 April, proceeds
 * gross with the fees among the allowable costs; its summary is SA108's cryptoasset boxes
 * (sa108.ts); the journal holds bed and breakfast at a month end on an account of its own
 * (bed-and-breakfast.ts). Sources: README.md in lib/gains.
 */
import type { LotMethodRules, TaxRuleSet } from '../types.ts';
import { createHmrcIdentification, THIRTY_DAYS } from './identification.ts';
import { createSa108Summary } from './sa108.ts';

export { heldAtPoolCost, type MatchedAhead } from './bed-and-breakfast.ts';

/** How the journal posts HMRC identification (README "Into the books"). */
function journalLine(thirtyDay: string): string {
  return `journal, HMRC identification: each disposal on its own date at its cost as finally matched (same day, 30 days, then the section 104 pool); an acquisition at its full cost, the part the same-day and 30-day rules match leaving with its disposal, so the asset account holds the pool; at a month end between a disposal and the later acquisition the 30-day rule matched it with (bed and breakfast), the tokens held stay at the pool's average cost and what the sale's cost exceeds that by is credited to ${thirtyDay}, reversed the next day (in the next period's journal for the period's last month end); a disposal whose 30 days are not over in the data is at its provisional cost (listed under "May still change" and in the gains warnings), and the next period's reversal is then the correction to its final cost`;
}

/**
 * HMRC's share identification for cryptoassets (TCGA 1992 ss 104, 105, 106A; Cryptoassets Manual
 * CRYPTO22200+): same-day acquisitions, then those of the next 30 days, then the section 104 pool
 * at average cost. Pools universally only.
 */
export const HMRC_IDENTIFICATION: LotMethodRules = {
  name: 'hmrc',
  words: "HMRC's identification: same day, then the next 30 days, then the section 104 pool at average cost",
  readsPastPeriod: THIRTY_DAYS,
  wholeDays: true,
  namesRule: true,
  poolHistory: true,
  poolings: {
    allowed: ['universal'],
    reason: 'HMRC identification pools each token across every wallet: use universal',
  },
  identification: createHmrcIdentification,
  journal: {
    holdingsCheck:
      ' (the section 104 pool less the 30-day matches ahead, the tokens held at the average cost of the pool)',
    readme: (account) => journalLine(account('thirty-day')),
    perWalletRefused:
      'per-wallet asset accounts are not available with HMRC identification (one section 104 pool per token, whatever the wallet)',
    // HMRC identification posts bed and breakfast at a month end to the 30-day account (bed-and-breakfast.ts).
    accounts: [
      {
        kind: 'thirty-day',
        why: 'with HMRC identification the journal posts to the thirty-day account (a disposal matched with a later acquisition, at a month end in between)',
      },
    ],
  },
};

/** `uk`: HMRC identification, the UK tax year, GBP, SA108. */
export const UK: TaxRuleSet = {
  id: 'uk',
  words: "United Kingdom (HMRC's same-day, 30-day and section 104 pool identification)",
  defaults: { method: 'hmrc', pooling: 'universal', taxYearStart: '04-06', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['hmrc'],
      reason:
        'uk rules match by HMRC identification (same day, 30 days, section 104 pool: TCGA 1992 ss 104, 105, 106A)',
    },
    pooling: {
      allowed: ['universal'],
      reason: 'uk rules pool each token per person, across every wallet (section 104 pool)',
    },
    taxYearStart: { allowed: ['04-06'], reason: 'the UK tax year starts on 6 April' },
    longTermYears: { allowed: [1], reason: 'uk rules have no holding period' },
  },
  timeZone: 'Europe/London',
  // Exact (a share of a cost is cost × units ÷ pool units, to 18 places): HMRC's whole pounds in
  // CRYPTO22252–22257 are display, and rounding each share up to the pound made a share exceed
  // its pool and costs go negative. Money is rounded once, when a line is shown (rounding.ts).
  rounding: null,
  exchangeValue: 'counterpart',
  disposalFee: 'cost',
  incomeFee: 'basis',
  currency: 'GBP',
  methods: [HMRC_IDENTIFICATION],
  summary: createSa108Summary,
};
