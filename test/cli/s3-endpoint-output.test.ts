/**
 * What a user reads on a run into an S3-compatible store (`--s3-endpoint`): the CLI's lines, and
 * no notice of the AWS SDK's (its "Stream of unknown length" warning went to the terminal).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv } from '../support/process-group.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

let server: S3TestServer;
let dir: string;
beforeAll(async () => {
  server = await startS3rver();
  dir = await mkdtemp(join(tmpdir(), 'pbs-s3-output-'));
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a run with --s3-endpoint', () => {
  it('prints no AWS SDK warning', async () => {
    const { stderr, stdout } = await promisify(execFile)(
      process.execPath,
      [
        'bin/pbs-export.mjs',
        'run',
        '--simulator',
        '--period',
        '2025-10',
        '--format',
        'csv',
        '--s3',
        `s3://${server.bucket}/reports-here`,
        '--s3-endpoint',
        server.endpoint,
      ],
      {
        env: { ...childEnv(dir), AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
      },
    );

    expect(stdout).toContain('Download links (valid 60 minutes):');
    expect(stderr).not.toMatch(/Stream of unknown length|lib-storage/);
  });
});
