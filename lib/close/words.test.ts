import { describe, expect, it } from 'vitest';
import type { Restatement } from './restatement.ts';
import { restatementSentence, signedMoney } from './words.ts';

/** A restatement of October 2025 whose only effect is a realised gains total that changed by `change`. */
function restatementWith(change: string, currency: string): Restatement {
  return {
    info: {
      close: {
        id: 'c1',
        kind: 'close',
        profile: 'acme',
        period: '2025-10',
        runId: '20251103T091500Z-3f9a1c',
        prefix: 'reports/acme/2025-10/20251103T091500Z-3f9a1c',
        manifestSha256: '0'.repeat(64),
        by: 'ana',
        at: '2025-11-03T09:20:00Z',
        reason: '',
      },
      closedSnapshot: { name: 'acme_2025-10_snapshot.ndjson.gz', sha256: '0'.repeat(64) },
      checkedAt: '2025-12-01T00:00:00Z',
      lastModified: {},
    },
    profile: 'acme',
    period: '2025-10',
    timeZone: 'UTC',
    csv: {},
    changes: [{ kind: 'deleted', id: 'tx-1', before: null, after: null, lastModified: '', fields: [] }],
    effects: [
      {
        table: 'gains_summary',
        tableTitle: 'Gains summary',
        row: ['2025', 'TOTAL', 'short'],
        column: 'net',
        header: `Net gain or loss (${currency})`,
        before: '0',
        after: change,
        change,
      },
    ],
  } as unknown as Restatement;
}

describe('money in the restatement sentence', () => {
  it('shows an amount of one decimal with the two of the currency', () => {
    expect(restatementSentence(restatementWith('-298563.6', 'USD'))).toMatch(
      /; realised gains of 2025 −298 563\.60 USD$/,
    );
  });

  it('rounds an amount of more decimals to the currency minor unit', () => {
    expect(restatementSentence(restatementWith('1234.565', 'EUR'))).toMatch(
      /; realised gains of 2025 \+1 234\.56 EUR$/,
    );
  });
});

describe('signedMoney', () => {
  it('shows whole amounts with two decimals in USD, none in JPY', () => {
    expect([signedMoney('12', 'USD'), signedMoney('-1500', 'JPY')]).toEqual(['+12.00 USD', '−1 500 JPY']);
  });
});
