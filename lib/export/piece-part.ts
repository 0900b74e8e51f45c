/**
 * A window's piece read back as its shard's part: a fetch-shard task that stored its window's
 * piece stores no part (docs/pipeline.md, "Window pieces"), so when the finish must assemble the
 * run from parts after all (another window made no piece), it makes this window's part of the
 * piece's gzip member of the snapshot. The member holds the window's transactions as the run's
 * assembly keeps them (routed, deduplicated, in order), each with the service's own JSON text; what
 * the window's assembly dropped is counted with the part (`FetchedShard.droppedBefore`).
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { parseJsonValue } from '../domain/index.ts';
import type { RawTransaction } from '../pbs/index.ts';
import type { FetchedShard } from './fetch/index.ts';
import type { StoredPiece } from './join-pieces.ts';
import {
  encodePartLine,
  type PartLineFields,
  partLineKey,
  readNdjsonLines,
  SnapshotError,
} from './snapshot/index.ts';

/**
 * The part of `shard` made of `piece` (its window's), written to a plain part file in `dir`, with
 * the fetch the piece describes and what its window's assembly dropped.
 */
export async function pieceAsPart(
  piece: StoredPiece,
  shard: FetchedShard['shard'],
  fields: PartLineFields,
  dir: string,
): Promise<FetchedShard> {
  const { description } = piece;
  const member = { start: piece.offset, end: piece.offset + description.memberBytes - 1 };
  const partFile = join(dir, `piece-part-${shard.id}.ndjson`);
  const out = createWriteStream(partFile);
  const failed = once(out, 'error').then(([error]) => Promise.reject(error));
  failed.catch(() => {});
  try {
    if (description.memberBytes > 0) {
      for await (const line of readNdjsonLines(piece.file, member)) {
        if (!out.write(`${partLineOf(line, fields)}\n`)) await Promise.race([once(out, 'drain'), failed]);
      }
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  } catch (error) {
    out.destroy();
    throw error;
  }
  return {
    ...description.shard,
    shard,
    partFile,
    droppedBefore: {
      duplicates: description.assembled.duplicates,
      outsideWindow: description.assembled.outsideWindow,
    },
  };
}

/**
 * The part line of a snapshot's transaction line: its item's JSON text as the snapshot holds it
 * (the service's own bytes), read with every number token kept as written.
 */
function partLineOf(line: string, fields: PartLineFields): string {
  const record = parseJsonValue(line) as { kind?: unknown; shard?: unknown; data?: unknown };
  if (record.kind !== 'transaction' || typeof record.data !== 'object' || record.data === null) {
    throw new SnapshotError(`a window's snapshot member holds a line that is no transaction`);
  }
  const item = record.data as RawTransaction;
  const start = `{"kind":"transaction","shard":${JSON.stringify(record.shard)},"data":`;
  const sent = line.startsWith(start) && line.endsWith('}') ? line.slice(start.length, -1) : undefined;
  return encodePartLine(item, fields, true, partLineKey(item, fields), sent);
}
