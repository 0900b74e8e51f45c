import { describe, expect, it } from 'vitest';
import { ContradictoryAdjustmentsError, InvalidAdjustmentsError } from './errors.ts';
import type { Adjustment } from './schema.ts';
import { parseAdjustments, validateAdjustments } from './validate.ts';

const BY = { by: 'ann', at: '2026-11-20T10:00:00Z', why: 'statement' };
const document = (adjustments: unknown[]) => ({
  schema: 'pbs-export/adjustments@1',
  profile: 'acme',
  version: 1,
  adjustments,
});
const pair = (id: string, outTxId: string, inTxId: string): Adjustment => ({
  ...BY,
  id,
  kind: 'transfer-pair',
  outTxId,
  inTxId,
});

describe('validateAdjustments', () => {
  it('names the field at fault', () => {
    expect(() =>
      validateAdjustments(document([{ ...BY, id: 'v', kind: 'value', txId: 't', value: '1,5' }])),
    ).toThrow(new InvalidAdjustmentsError('adjustments[0].value', 'must be a plain decimal such as 12.50'));
    expect(() => parseAdjustments(new TextEncoder().encode('{'))).toThrow(
      /adjustments: \(document\): not JSON text/,
    );
  });

  it('refuses two pairs using the same transaction, naming both', () => {
    expect(() => validateAdjustments(document([pair('p1', 'a', 'b'), pair('p2', 'c', 'b')]))).toThrow(
      new ContradictoryAdjustmentsError(['p1', 'p2'], 'transaction b is in two transfer pairs'),
    );
  });

  it('refuses a basis for a side of a pair, a repeated id, and a value for a spam token', () => {
    expect(() =>
      validateAdjustments(
        document([
          pair('p1', 'a', 'b'),
          { ...BY, id: 'b1', kind: 'cost-basis', txId: 'b', token: 'ETH', cost: '1' },
        ]),
      ),
    ).toThrow(/adjustments p1 and b1 contradict: transaction b is a side of a transfer between own accounts/);
    expect(() => validateAdjustments(document([pair('x', 'a', 'b'), pair('x', 'c', 'd')]))).toThrow(
      /adjustments x contradict: the id "x" is used twice/,
    );
    expect(() =>
      validateAdjustments(
        document([
          { ...BY, id: 's1', kind: 'spam', token: 'SCAM' },
          { ...BY, id: 'v1', kind: 'value', txId: 't', token: 'SCAM', value: '1' },
        ]),
      ),
    ).toThrow(/adjustments s1 and v1 contradict: SCAM is marked as spam/);
  });

  it('accepts one adjustment of each kind', () => {
    const lot = { token: 'BTC', quantity: '2', cost: '7000', acquiredAt: '2019-01-01T00:00:00Z' };
    const all: Adjustment[] = [
      pair('p1', 'a', 'b'),
      {
        ...BY,
        id: 'b1',
        kind: 'cost-basis',
        txId: 'c',
        token: 'ETH',
        cost: '10',
        acquiredAt: '2020-01-01T00:00:00Z',
      },
      { ...BY, id: 'm1', kind: 'missing-lots', txId: 'd', lots: [lot] },
      { ...BY, id: 'v1', kind: 'value', txId: 'e', value: '3' },
      { ...BY, id: 's1', kind: 'spam', token: 'SCAM' },
      { ...BY, id: 'c1', kind: 'category', txId: 'f', category: 'gift' },
      { ...BY, id: 'o1', kind: 'opening-lots', lots: [lot] },
    ];
    expect(validateAdjustments(document(all)).adjustments).toHaveLength(7);
  });
});

describe('withdrawals in the document', () => {
  const spam = (id: string): Adjustment => ({ ...BY, id, kind: 'spam', token: id.toUpperCase() });
  const withdrawn = (id: string) => ({
    adjustment: spam(id),
    by: 'bob',
    at: '2026-11-21T10:00:00Z',
    why: 'x',
  });

  it('keeps a document without withdrawals as it was, and takes one with them', () => {
    expect(validateAdjustments(document([spam('a')]))).not.toHaveProperty('withdrawn');
    expect(validateAdjustments({ ...document([spam('a')]), withdrawn: [withdrawn('b')] }).withdrawn).toEqual([
      withdrawn('b'),
    ]);
  });

  it('refuses an id withdrawn and still in force, or withdrawn twice', () => {
    expect(() => validateAdjustments({ ...document([spam('a')]), withdrawn: [withdrawn('a')] })).toThrow(
      new InvalidAdjustmentsError(
        'withdrawn[0].adjustment.id',
        'a is withdrawn and still an adjustment: an id names one adjustment for good',
      ),
    );
    expect(() =>
      validateAdjustments({ ...document([]), withdrawn: [withdrawn('b'), withdrawn('b')] }),
    ).toThrow(new InvalidAdjustmentsError('withdrawn[1].adjustment.id', 'b is withdrawn twice'));
  });
});
