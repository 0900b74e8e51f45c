import { describe, expect, it } from 'vitest';
import { failureReason, MAX_REASON_LENGTH, redactSecrets } from './redact.ts';

describe('failureReason', () => {
  it('returns the error name and the Lambda errorMessage', () => {
    const cause = JSON.stringify({
      errorType: 'StorageError',
      errorMessage: 's3://b/k: upload failed',
      trace: ['at x'],
    });

    expect(failureReason({ Error: 'StorageError', Cause: cause })).toBe(
      'StorageError: s3://b/k: upload failed',
    );
  });

  it('returns a plain cause as it is', () => {
    expect(failureReason({ Error: 'States.Timeout', Cause: 'Task timed out after 900 s' })).toBe(
      'States.Timeout: Task timed out after 900 s',
    );
  });

  it('returns the name alone without a cause', () => {
    expect(failureReason({ Error: 'States.Timeout' })).toBe('States.Timeout');
  });

  it('returns Error when nothing is given', () => {
    expect(failureReason(undefined)).toBe('Error');
  });

  it('cuts a long reason to the maximum length', () => {
    expect(failureReason({ Error: 'E', Cause: 'word '.repeat(200) })).toHaveLength(MAX_REASON_LENGTH);
  });

  it('drops the stack trace of the Lambda error', () => {
    const cause = JSON.stringify({
      errorMessage: 'boom',
      trace: ['Error: boom', '    at handler (/var/task/index.mjs:1:1)'],
    });

    expect(failureReason({ Error: 'Error', Cause: cause })).toBe('Error: boom');
  });
});

describe('redactSecrets', () => {
  it('returns text without a long mixed token', () => {
    expect(redactSecrets('key sk_acme_9a2c7e4f1b8d3a6c0e5f2b9d4a7c1e8f rejected')).toBe(
      'key [redacted] rejected',
    );
  });

  it('returns text without the value of a named credential', () => {
    expect(redactSecrets('apiSecret=abc123 and password: hunter2')).toBe(
      'apiSecret=[redacted] and password: [redacted]',
    );
  });

  it('returns a presigned URL without its signature', () => {
    const url = 'https://b.s3.amazonaws.com/k?X-Amz-Credential=AKIA/x&X-Amz-Signature=0a1b2c3d';

    expect(redactSecrets(url)).not.toMatch(/AKIA|0a1b2c3d/);
  });

  it('returns ordinary words and dates unchanged', () => {
    expect(redactSecrets('shard 2025-03~aave-v3: fetched 3 of 4')).toBe(
      'shard 2025-03~aave-v3: fetched 3 of 4',
    );
  });

  it('keeps the ids a reason names: transaction ids, hashes, UUIDs, job and run ids, S3 keys', () => {
    const ids = [
      'tx_9f8e7d6c5b4a39281706f5e4d3c2b1a0',
      '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
      'Tx9f8e7d6c5b4a39281706f5e4d3c2b1a0ABCDEF',
      '6f1c2b3a-4d5e-4f60-8a7b-9c0d1e2f3a4b',
      '3f9a1c0b7e2d4a5f8c6b1e0d9a7f3c2b',
      'reports/demo/2025-10/20251103T091500Z-3f9a1c/demo_2025-10_gains_summary.csv',
    ];
    const reason = `adjustment a2 names transaction "${ids[0]}", which the data does not have; also ${ids.slice(1).join(', ')}`;

    expect(redactSecrets(reason)).toBe(reason);
  });

  it('redacts credential-shaped strings whatever their value', () => {
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbm4ifQ.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';
    const awsSecret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
    const texts = [
      `Authorization: Bearer ${jwt}`,
      `token ${jwt} expired`,
      'key AKIAIOSFODNN7EXAMPLE denied',
      `secret access key ${awsSecret} rejected`,
      'GET https://ann:hunter2hunter2@pbs.example/v2 failed',
      'key c2stbGl2ZS0xMjM0NTY3ODkwYWJjZGVmZ2hpams+/w== in body',
      '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----',
    ];

    const redacted = texts.map(redactSecrets);

    for (const [k, text] of redacted.entries())
      expect([k, text]).toEqual([k, expect.stringContaining('[redacted]')]);
    expect(redacted.join('\n')).not.toMatch(/eyJ|AKIA|wJalrXUtnFEMI|hunter2|c2stbGl2|MIIEvQ/);
    expect(redacted[0]).toBe('Authorization: [redacted] [redacted]');
  });
});

describe('failureReason of a worker error naming a transaction', () => {
  it('shows the transaction id, not [redacted]', () => {
    const id = 'tx_9f8e7d6c5b4a39281706f5e4d3c2b1a0';
    const cause = JSON.stringify({
      errorType: 'AdjustmentsError',
      errorMessage: `adjustment a2 names transaction "${id}", which the data does not have`,
    });

    expect(failureReason({ Error: 'AdjustmentsError', Cause: cause })).toBe(
      `AdjustmentsError: adjustment a2 names transaction "${id}", which the data does not have`,
    );
  });
});
