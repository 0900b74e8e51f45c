/**
 * A published snapshot read from the bucket as it streams in: gunzipped (every member) and split
 * into lines on the way, never written to disk nor held whole. The API's Lambda reads one this way
 * to check an adjustment (`adjustments-check.ts`), and stops reading when the check is decided.
 */
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { parseJsonValue } from '../domain/index.ts';
import { SNAPSHOT_FORMAT, SnapshotError, type SnapshotHeader } from '../export/index.ts';

/** An open snapshot: its header, then its transactions' data in order; `close` stops the download. */
export interface StreamedSnapshot {
  header: SnapshotHeader;
  transactions(): AsyncGenerator<Record<string, unknown>>;
  close(): void;
}

/** Opens the snapshot at `key`; throws `SnapshotError` when its first line is not a snapshot's header. */
export async function openSnapshotStream(
  deps: { s3: S3Client; bucket: string },
  key: string,
): Promise<StreamedSnapshot> {
  const answer = await deps.s3.send(new GetObjectCommand({ Bucket: deps.bucket, Key: key }));
  const body = answer.Body as Readable | undefined;
  if (body === undefined) throw new SnapshotError(`${key}: empty snapshot`);
  const gunzip = createGunzip();
  body.on('error', (error) => gunzip.destroy(error));
  const lines = createInterface({ input: body.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
  const reader = lines[Symbol.asyncIterator]();
  const close = () => {
    lines.close();
    gunzip.destroy();
    body.destroy();
  };
  try {
    const first = await reader.next();
    const header = (first.done ? null : parseJsonValue(first.value)) as Partial<SnapshotHeader> | null;
    if (header?.kind !== 'header' || header.format !== SNAPSHOT_FORMAT)
      throw new SnapshotError(`${key}: not a ${SNAPSHOT_FORMAT} file (first line is not its header)`);
    return {
      header: header as SnapshotHeader,
      async *transactions() {
        for (let line = await reader.next(); !line.done; line = await reader.next()) {
          if (line.value === '') continue;
          const record = parseJsonValue(line.value) as { kind?: unknown; data?: Record<string, unknown> };
          if (record.kind === 'transaction' && record.data !== undefined) yield record.data;
        }
      },
      close,
    };
  } catch (error) {
    close();
    throw error;
  }
}
