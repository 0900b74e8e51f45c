/**
 * FOR LOCAL USE ONLY: S3's conditional writes over s3rver, which ignores `If-None-Match` and
 * `If-Match` (DESIGN.md, known traps). The job store and the per-key slots rely on them (a
 * create that cannot overwrite, a compare-and-swap update), so `npm run serve` adds them here, as
 * a middleware on its one S3 client:
 *
 * - A conditional PutObject is checked (HEAD: does the object exist, what is its ETag) and
 *   written as one step per key, so that concurrent writers race as on S3: one wins, the others
 *   get the 412 `PreconditionFailed` S3 answers.
 * - A GetObject of a key written conditionally waits for the conditional writes of that key in
 *   flight and reads the whole body inside its step: s3rver writes a file in place, so a read
 *   during a write could see it half written, which S3 never returns.
 *
 * Atomic within one process only (every writer of `serve` is in its process). Deployed, S3 itself
 * enforces both headers and this is never used.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { LocalPreconditionFailedError } from './errors.ts';
import { isNotFound } from './s3-objects.ts';

interface ConditionalInput {
  Bucket?: string;
  Key?: string;
  IfNoneMatch?: string;
  IfMatch?: string;
}

/**
 * Throws {@link LocalPreconditionFailedError} (S3's 412) unless the condition of a PutObject holds for the object
 * as it is now (read with `probe`): `If-None-Match: *` requires that it does not exist,
 * `If-Match: <etag>` that it exists with that ETag.
 */
export async function checkWriteCondition(probe: S3Client, input: ConditionalInput): Promise<void> {
  let etag: string | undefined;
  const { HeadObjectCommand } = await loadS3Sdk();
  try {
    etag = (await probe.send(new HeadObjectCommand({ Bucket: input.Bucket, Key: input.Key }))).ETag;
  } catch (error) {
    if (!isNotFound(error)) throw error;
    etag = undefined;
  }
  const key = `${input.Bucket}/${input.Key}`;
  if (input.IfNoneMatch === '*' && etag !== undefined) {
    throw new LocalPreconditionFailedError(key, 'If-None-Match: *');
  }
  if (input.IfMatch !== undefined && etag !== input.IfMatch) {
    throw new LocalPreconditionFailedError(key, `If-Match: ${input.IfMatch}`);
  }
}

/**
 * Adds S3's conditional writes to `client` (a client of s3rver); see the module comment.
 * `probe` reads the objects' ETags; by default `client` itself (HEAD passes the middleware by).
 */
export function addConditionalWrites(client: S3Client, probe: S3Client = client): void {
  const chains = new Map<string, Promise<unknown>>();
  /** Keys written conditionally at least once: their reads are serialised with their writes. */
  const conditionalKeys = new Set<string>();
  /** Runs `step` after everything queued on `key`, and queues it there. */
  const serialise = <T>(key: string, step: () => Promise<T>): Promise<T> => {
    const run = (chains.get(key) ?? Promise.resolve()).then(step);
    const settled = run.catch(() => {});
    chains.set(key, settled);
    void settled.then(() => {
      if (chains.get(key) === settled) chains.delete(key);
    });
    return run;
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as ConditionalInput;
      const key = `${input.Bucket}/${input.Key}`;
      if (context.commandName === 'GetObjectCommand' && conditionalKeys.has(key)) {
        return serialise(key, async () => {
          const output = (await next(args)) as {
            output: { Body?: { transformToByteArray(): Promise<Uint8Array> } };
          };
          const body = output.output.Body;
          if (body !== undefined) {
            const bytes = await body.transformToByteArray();
            Object.assign(body, {
              transformToByteArray: async () => bytes,
              transformToString: async (encoding?: string) =>
                Buffer.from(bytes).toString((encoding ?? 'utf8') as BufferEncoding),
            });
          }
          return output;
        }) as ReturnType<typeof next>;
      }
      const conditional = input.IfNoneMatch !== undefined || input.IfMatch !== undefined;
      if (context.commandName !== 'PutObjectCommand' || !conditional) return next(args);
      conditionalKeys.add(key);
      return serialise(key, async () => {
        await checkWriteCondition(probe, input);
        return next(args);
      });
    },
    { step: 'initialize', name: 'localConditionalWrites' },
  );
}
