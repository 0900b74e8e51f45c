import { DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import { checkDestination } from './preflight.ts';

const destination = { kind: 's3', bucket: 'reports', prefix: 'exports' } as const;

describe('checkDestination in S3', () => {
  it('deletes the version of its probe in a versioned bucket, so no delete marker is left', async () => {
    const s3 = new S3Client({ region: 'us-east-1' });
    const mock = mockClient(s3);
    mock.on(PutObjectCommand).resolves({ VersionId: 'v1' });
    mock.on(DeleteObjectCommand).resolves({});

    await checkDestination(destination, s3);

    const put = mock.commandCalls(PutObjectCommand)[0]?.args[0].input;
    expect(mock.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input)).toEqual([
      { Bucket: 'reports', Key: put?.Key, VersionId: 'v1' },
    ]);
    expect(put?.Key).toMatch(/^exports\/\.pbs-export-probe-[0-9a-f]{12}$/);
  });

  it('falls back to a plain delete where the credentials may not delete versions', async () => {
    const s3 = new S3Client({ region: 'us-east-1' });
    const mock = mockClient(s3);
    mock.on(PutObjectCommand).resolves({ VersionId: 'v1' });
    mock.on(DeleteObjectCommand).resolves({});
    mock
      .on(DeleteObjectCommand, { VersionId: 'v1' })
      .rejects(Object.assign(new Error('denied'), { name: 'AccessDenied' }));

    await checkDestination(destination, s3);

    expect(mock.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.VersionId)).toEqual([
      'v1',
      undefined,
    ]);
  });

  it('names --s3 when the credentials may not write there', async () => {
    const s3 = new S3Client({ region: 'us-east-1' });
    mockClient(s3)
      .on(PutObjectCommand)
      .rejects(
        Object.assign(new Error('denied'), { name: 'AccessDenied', $metadata: { httpStatusCode: 403 } }),
      );

    await expect(checkDestination(destination, s3)).rejects.toThrow(
      /^--s3: the credentials may not write and delete in s3:\/\/reports\/exports\/ \(AccessDenied\)$/,
    );
  });
});
