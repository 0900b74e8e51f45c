import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  GetObjectCommand,
  S3Client,
  UploadPartCommand,
  type UploadPartCopyCommandInput,
} from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { s3ClientOf } from '../../lib/storage/s3-client.ts';
import { makeObjectWritesAtomic } from '../../lib/storage/s3rver-atomic.ts';

/** A running s3rver on loopback, with a client and an empty bucket. */
export interface S3TestServer {
  /** Base URL, e.g. `http://127.0.0.1:40123`. */
  endpoint: string;
  /** Path-style client with dummy credentials and checksums only when required (see DESIGN.md). */
  client: S3Client;
  /** Name of the bucket created at start (`test-bucket`). */
  bucket: string;
  /** Temporary directory holding the server's data; removed by `close()`. */
  dir: string;
  /** Builds another client for the same server, e.g. to add middleware without touching `client`. */
  createClient(): S3Client;
  /** Destroys the clients, stops the server and removes `dir`. */
  close(): Promise<void>;
}

/**
 * Starts s3rver on 127.0.0.1 on a free port, storing into a fresh temporary directory, with one
 * bucket. Call `close()` in `afterAll`/`afterEach`.
 *
 * s3rver lacks UploadPartCopy, rejects AbortMultipartUpload and has no conditional writes.
 */
export async function startS3rver(): Promise<S3TestServer> {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-s3rver-'));
  const bucket = 'test-bucket';
  const server = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: bucket }],
  });
  makeObjectWritesAtomic(server);
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const clients: S3Client[] = [];
  const createClient = (): S3Client => {
    const created = s3ClientOf(S3Client, {
      region: 'us-east-1',
      endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    clients.push(created);
    return created;
  };
  const client = createClient();
  return {
    endpoint,
    client,
    bucket,
    dir,
    createClient,
    async close() {
      for (const created of clients) created.destroy();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Records the name of every command sent through `client` (e.g. `UploadPartCommand`), including
 * those that fail, in the order they were sent. Returns the live list.
 */
export function recordCommands(client: S3Client): string[] {
  const names: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      names.push(context.commandName ?? 'unknown');
      return next(args);
    },
    { step: 'initialize', name: 'testRecordCommands' },
  );
  return names;
}

/**
 * Makes `client` fail, without sending anything, every command for which `when` returns true,
 * throwing `error`. Failing before the retry step means the SDK does not retry it.
 */
export function failCommands(
  client: S3Client,
  when: (commandName: string, input: Record<string, unknown>) => boolean,
  error: Error,
): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (when(context.commandName ?? '', args.input as Record<string, unknown>)) throw error;
      return next(args);
    },
    { step: 'initialize', name: 'testFailCommands' },
  );
}

/**
 * Adds UploadPartCopy, which s3rver lacks, to `client`: the part's range is read from the source
 * object (GetObject with Range) and uploaded as that part (UploadPart) through `probe`, another
 * client of the same server, and the answer carries the part's ETag as S3's does. The command
 * never reaches s3rver, so a middleware added to `client` before this one still sees it.
 */
export function emulateUploadPartCopy(client: S3Client, probe: S3Client): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName !== 'UploadPartCopyCommand') return next(args);
      const input = args.input as UploadPartCopyCommandInput;
      const [sourceBucket, ...segments] = String(input.CopySource).split('/');
      const source = await probe.send(
        new GetObjectCommand({
          Bucket: sourceBucket,
          Key: segments.map(decodeURIComponent).join('/'),
          Range: input.CopySourceRange,
        }),
      );
      const part = await probe.send(
        new UploadPartCommand({
          Bucket: input.Bucket,
          Key: input.Key,
          UploadId: input.UploadId,
          PartNumber: input.PartNumber,
          Body: Buffer.from((await source.Body?.transformToByteArray()) ?? []),
        }),
      );
      return {
        output: { CopyPartResult: { ETag: part.ETag }, $metadata: { httpStatusCode: 200 } },
        response: {},
      } as Awaited<ReturnType<typeof next>>;
    },
    { step: 'initialize', name: 'emulateUploadPartCopy' },
  );
}
