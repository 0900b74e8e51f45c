/**
 * What the export trusts of the timeline: its `deleted` flag only as a JSON boolean, and its items
 * only when their `lastModifiedDate` is at or after the date asked for. A service that ignores
 * `lastModifiedDate` would otherwise have months-old edits listed as recent changes, and a flag
 * sent as `1` or `"yes"` would have a deleted transaction published as not deleted.
 */

import { stringifyJson } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTimelineItem, TransactionFieldMap } from '../../pbs/index.ts';
import { getPath } from '../../pbs/index.ts';
import { transactionId, transactionInstant } from './part-line.ts';

/** A timeline item the export cannot read as the service meant it; names the field and the value. */
export class TimelineItemError extends PbsExportError {
  readonly path: string;
  readonly transactionId: string | null;

  constructor(path: string, problem: string, transactionId: string | null) {
    const who = transactionId === null ? 'a timeline item' : `timeline item ${JSON.stringify(transactionId)}`;
    super('invalid_timeline_item', `${who}: field "${path}" ${problem}`);
    this.path = path;
    this.transactionId = transactionId;
  }
}

/**
 * Whether a timeline item is deleted: JSON `true` or `false`; absent (or `null`) is not deleted.
 * Anything else (`1`, `"yes"`, `"true"`, …) throws {@link TimelineItemError} naming the field and
 * the value: guessing would publish a deleted transaction as a live one, or the reverse.
 */
export function deletedFlag(item: RawTimelineItem, path: string, id: string | null): boolean {
  const value = getPath(item, path);
  if (value === undefined || value === null) return false;
  if (typeof value === 'boolean') return value;
  throw new TimelineItemError(
    path,
    `is ${shown(value)}, not a JSON boolean (only true or false mark a deleted transaction)`,
    id,
  );
}

function shown(value: unknown): string {
  const text = stringifyJson(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Options of {@link changesSince}. */
export interface ChangesSinceOptions {
  /** The instant the changes report starts at (`changesSince`, resolved). */
  since: Date;
  fields: Pick<TransactionFieldMap, 'id' | 'lastModifiedDate' | 'deleted'>;
  /** Told of each item dropped for a `lastModifiedDate` before `since`. */
  onDropped: (id: string, lastModified: number) => void;
}

/**
 * The timeline items modified at or after `since`, in the order the service sent them. An item
 * modified before it (a service that ignored `lastModifiedDate`, or one that filters by whole
 * days) is not a change since then: it is dropped and reported through `onDropped`. Each item's
 * `deleted` flag is checked on the way ({@link deletedFlag}); an item without a readable
 * `lastModifiedDate` cannot be shown to be a change and fails the run, naming the field.
 */
export async function* changesSince(
  items: AsyncIterable<RawTimelineItem>,
  options: ChangesSinceOptions,
): AsyncGenerator<RawTimelineItem> {
  const { fields } = options;
  const since = options.since.getTime();
  for await (const item of items) {
    const id = transactionId(item, fields);
    deletedFlag(item, fields.deleted, id);
    const modified = transactionInstant(item, { date: fields.lastModifiedDate }, id);
    if (modified < since) options.onDropped(id, modified);
    else yield item;
  }
}
