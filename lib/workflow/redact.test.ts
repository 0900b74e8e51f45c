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
});
