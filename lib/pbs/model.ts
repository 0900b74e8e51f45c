/**
 * Types of what the client returns. Records are the service's objects, validated for the fields
 * the export relies on and otherwise passed through untouched (unknown fields are kept).
 */

/** A transaction object exactly as the service sent it (layout per `ServiceShape.fields`). */
export type RawTransaction = Record<string, unknown>;

/** A timeline item: a transaction plus `source` and, for deleted ones, the deleted flag. */
export type RawTimelineItem = Record<string, unknown>;

/** An account, GAPS.md default `{id, name, type}`; other fields pass through. */
export type RawAccount = Record<string, unknown> & { id: string };

/** A ledger, GAPS.md default `{id, accountId, name, source: {sourceGuid, name}}`. */
export type RawLedger = Record<string, unknown> & { id: string };

export type SortKey = 'date' | 'value' | 'fee';
export type SortOrder = 'asc' | 'desc';

/** Filters of GET /v2/transactions (spec) plus the date window (GAPS.md). */
export interface TransactionQuery {
  /** `[start, end)`: start inclusive, end exclusive. */
  window?: { start: Date; end: Date };
  /** `t`, repeatable: any of these token symbols. */
  tokens?: readonly string[];
  /** `cf`: transaction category, passed through as given. */
  category?: string;
  /** `p`: one DeFi protocol name as returned by the metadata endpoint. */
  protocol?: string;
  /** `h`: transaction hash. When given, every other filter is ignored by the service. */
  hash?: string;
  sort?: SortKey;
  order?: SortOrder;
}

export interface TimelineQuery {
  /** Returns items modified from this instant on, deleted ones included. */
  lastModifiedDate?: Date;
}

/** Earliest and latest transaction dates; both `null` for an empty portfolio. */
export interface DateBounds {
  earliest: Date | null;
  latest: Date | null;
}

/** One fetched page: its items and, where the service reports one, the total item count. */
export interface Page<T> {
  items: T[];
  /** Total items across all pages, when the service reports it. */
  totalItems: number | null;
  /** 0-based index of the page in this listing. */
  index: number;
  /**
   * True when the page's items may hold number tokens kept as text (`ExactNumber`, see
   * `domain/json/exact-json.ts`): write them with `stringifyJson`, never `JSON.stringify`.
   */
  exactNumbers?: boolean;
  /**
   * Each item's JSON text as the service sent it, in order (see `item-texts.ts`), when asked for
   * (`PageRequestOptions.itemTexts`) and found in the body.
   */
  itemTexts?: readonly string[];
}
