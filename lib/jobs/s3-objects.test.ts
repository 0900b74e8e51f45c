/**
 * Telling S3's errors apart without loading the SDK (`isServiceError` in `s3-objects.ts`) accepts
 * what the SDK throws, as its classes' `instanceof` did, and nothing that only looks alike.
 */
import { NoSuchKey, NotFound, S3ServiceException } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { LocalPreconditionFailedError } from './errors.ts';
import { isConditionalConflict, isNotFound, isPreconditionFailed } from './s3-objects.ts';

/** An error as the SDK throws for an S3 answer with `status` and no class of its own. */
const answered = (name: string, status: number) =>
  new S3ServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });

describe('the error kinds of S3 answers', () => {
  it('finds a missing object in the SDK classes of GET and HEAD, and in any 404', () => {
    expect([
      isNotFound(new NoSuchKey({ message: 'gone', $metadata: {} })),
      isNotFound(new NotFound({ message: 'gone', $metadata: {} })),
      isNotFound(answered('NoSuchBucket', 404)),
    ]).toEqual([true, true, true]);
  });

  it('tells the conditional-write refusals by their status, never by name', () => {
    expect([
      isPreconditionFailed(answered('PreconditionFailed', 412)),
      isPreconditionFailed(new LocalPreconditionFailedError('jobs/a.json', 'If-None-Match: *')),
      isPreconditionFailed(answered('PreconditionFailed', 400)),
      isConditionalConflict(answered('ConditionalRequestConflict', 409)),
      isConditionalConflict(answered('ConditionalRequestConflict', 500)),
    ]).toEqual([true, true, false, true, false]);
  });

  it('takes no other error for an S3 answer: a plain error named alike, a bare status, no error', () => {
    const named = Object.assign(new Error('gone'), { name: 'NoSuchKey' });
    const bare = { name: 'NotFound', $metadata: { httpStatusCode: 404 } };

    expect([isNotFound(named), isNotFound(bare), isNotFound(undefined), isPreconditionFailed(null)]).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
