import { describe, expect, it } from 'vitest';
import { signRequest } from './signing.ts';

// Expected digests were computed outside the project's code with OpenSSL 3, e.g.:
//   printf '%s' '/v2/accounts1700000000000' | openssl dgst -sha256 -hmac 'test-secret'
describe('signRequest', () => {
  it('returns the known HMAC-SHA256 of path followed by timestamp', () => {
    expect(signRequest('/v2/accounts', 1700000000000, 'test-secret')).toBe(
      '416fa20387fe02102966046340422d715c4294c638aedcc74bdc58e39717d92e',
    );
  });

  it('keys the HMAC with the secret as UTF-8 text', () => {
    // printf '%s' '/v2/transactions/date-bounds1763790000123' | openssl dgst -sha256 -hmac 'sëcret with spaces'
    expect(signRequest('/v2/transactions/date-bounds', 1763790000123, 'sëcret with spaces')).toBe(
      'f62962d6eaa18a42da8bc642bf3d062febaa79720d294bd550cb3addac14b324',
    );
  });

  it('returns the known digest for a single-character secret', () => {
    // printf '%s' '/v2/transactions1763790000000' | openssl dgst -sha256 -hmac 'k'
    expect(signRequest('/v2/transactions', 1763790000000, 'k')).toBe(
      '9f693c248a98d32ba222c8e65422729a8914dd06013704c39a2f0eb7c789a2b6',
    );
  });

  it('returns lowercase hexadecimal of 64 characters', () => {
    expect(signRequest('/v2/ledgers', 1, 'x')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('refuses a timestamp that is not a non-negative integer', () => {
    expect(() => signRequest('/v2/accounts', 1.5, 'x')).toThrow(RangeError);
  });
});
