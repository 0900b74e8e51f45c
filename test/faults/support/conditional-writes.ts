/**
 * S3's atomicity, emulated on a client of s3rver for tests with concurrent writers of one key:
 *
 * - Conditional writes (`If-None-Match: *`, `If-Match`), which s3rver ignores, are checked (a
 *   HEAD through `probe`) and written as one step per key, so concurrent writers race as on S3:
 *   one wins, the others get 412. (`test/support/workflow.ts` emulates them non-atomically, which
 *   is enough for sequential tests only.)
 * - Reads of a record (`jobs/`, `locks/`: small JSON objects, read whole) wait for the
 *   conditional writes of that key in flight: s3rver writes the file in place, so a read during a
 *   write can see it half written (an empty JSON body), which S3 never returns.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { checkWriteCondition } from '../../support/workflow.ts';

/** Adds the emulation to `client`; `probe` is another client of the same server. */
export function emulateAtomicConditionalWrites(client: S3Client, probe: S3Client): void {
  const chains = new Map<string, Promise<unknown>>();
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
      const input = args.input as { Bucket?: string; Key?: string; IfNoneMatch?: string; IfMatch?: string };
      const key = `${input.Bucket}/${input.Key}`;
      const conditional = input.IfNoneMatch !== undefined || input.IfMatch !== undefined;
      if (context.commandName === 'GetObjectCommand' && /^(jobs|locks)\//.test(input.Key ?? '')) {
        // Read the whole body inside the step, so a write cannot start while it streams.
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
      if (context.commandName !== 'PutObjectCommand' || !conditional) return next(args);
      return serialise(key, async () => {
        await checkWriteCondition(probe, input);
        return next(args);
      });
    },
    { step: 'initialize', name: 'faultsAtomicConditionalWrites' },
  );
}
