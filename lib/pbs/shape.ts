/**
 * The service's wire shapes where the specification is silent (see shared/spec/GAPS.md).
 *
 * One `ServiceShape` describes how a deployment of the service pages, names its date window,
 * formats dates and lays out its responses. The simulator serves exactly the shape it is given
 * and the client reads exactly the shape it is configured with, so every alternative of GAPS.md
 * is exercised end to end against a real HTTP server. `DEFAULT_SHAPE` is the GAPS.md default.
 */
import { DEFAULT_INSTANT_READING, type InstantReading } from './instant.ts';

/** How a date or instant is written on the wire. */
export type DateFormat =
  /** ISO-8601 UTC instant with milliseconds and `Z`, e.g. `2025-03-14T09:26:53.000Z`. */
  | 'iso-instant'
  /** ISO calendar date `YYYY-MM-DD` (UTC); as a window end it is inclusive. */
  | 'iso-date'
  /** Milliseconds since the Unix epoch, as a decimal integer. */
  | 'epoch-millis';

/** Page-number pagination: `?page=1&pageSize=500`. */
export interface PagePagination {
  style: 'page';
  pageParam: string;
  pageSizeParam: string;
  pageSize: number;
  /** Number of the first page (1 for the GAPS.md default). */
  firstPage: number;
  /** Response field path of the total item count; `null` when the service sends none. */
  totalItemsPath: string | null;
  /** Response field path of the total page count; `null` when the service sends none. */
  totalPagesPath: string | null;
}

/** Offset/limit pagination: `?offset=0&limit=500`. */
export interface OffsetPagination {
  style: 'offset';
  offsetParam: string;
  limitParam: string;
  limit: number;
  /** Response field path of the total item count; `null` when the service sends none. */
  totalItemsPath: string | null;
}

/** Opaque-cursor pagination: the next cursor comes from a response field or a `Link` header. */
export interface CursorPagination {
  style: 'cursor';
  /** Query parameter that carries the cursor on follow-up requests. */
  cursorParam: string;
  /** Query parameter for the page size; `null` when the service takes none. */
  limitParam: string | null;
  limit: number;
  /**
   * Where the next cursor is read: a response field path (absent, null or empty means the end),
   * or `link-header` for `Link: <url>; rel="next"` (the whole next URL is followed).
   */
  next: { from: 'field'; path: string } | { from: 'link-header' };
  /** Response field path of the total item count; `null` when the service sends none. */
  totalItemsPath: string | null;
}

export type Pagination = PagePagination | OffsetPagination | CursorPagination;

/**
 * Where each field the export relies on lives in a transaction object (dotted paths).
 * Fields not named here are never dropped: they reach the export as extra columns.
 */
export interface TransactionFieldMap {
  id: string;
  date: string;
  type: string;
  subType: string;
  category: string;
  protocol: string;
  hash: string;
  accountId: string;
  ledgerId: string;
  movements: string;
  /** Paths inside one movement object. */
  movementSymbol: string;
  movementAmount: string;
  movementValue: string;
  valueAmount: string;
  valueCurrency: string;
  feeAmount: string;
  feeCurrency: string;
  feeSymbol: string;
  feeQuantity: string;
  lastModifiedDate: string;
  /** Timeline only. */
  sourceGuid: string;
  sourceName: string;
  deleted: string;
  /**
   * How the date fields (`date`, `lastModifiedDate`) are read: the shape's `instants`, which
   * {@link resolveShape} copies here so that every stage given the field map reads them alike.
   * Absent: {@link DEFAULT_INSTANT_READING}.
   */
  instants?: InstantReading;
}

/**
 * Where the service reports each ledger's balances (GAPS.md "Reported balances"). Every balance
 * item is `{symbol, amount, asOf}`: the ledger's balance of one token at the instant `asOf`.
 */
export type BalancesSource =
  /** A field of each item of GET /v2/ledgers (dotted path; GAPS.md default `balances`). */
  | { source: 'ledger-field'; path: string }
  /**
   * A separate GET per ledger: `pathTemplate` with `{ledgerId}` replaced; the answer is the item
   * array itself (`itemsPath` null) or holds it at `itemsPath`.
   */
  | { source: 'endpoint'; pathTemplate: string; itemsPath: string | null }
  /** The service reports no balances: every reconciliation says "not reconciled". */
  | { source: 'none' };

export interface ServiceShape {
  pagination: Pagination;
  /** Response field path of the item array in list responses; `null` for a bare JSON array. */
  itemsPath: string | null;
  /** The date window on GET /v2/transactions: `[start, end)` instants written as `dateFormat`. */
  window: { startParam: string; endParam: string; dateFormat: DateFormat };
  timeline: { path: string; lastModifiedDateFormat: DateFormat };
  dateBounds: { earliestPath: string; latestPath: string };
  /** Response field path of the protocol-name array; `null` for a bare JSON array. */
  metadata: { protocolsPath: string | null };
  fields: TransactionFieldMap;
  /** How instants are written where no offset or epoch unit is given (see `instant.ts`). */
  instants: InstantReading;
  /** Where the ledgers' reported balances are (see {@link BalancesSource}). */
  balances: BalancesSource;
}

/** The GAPS.md defaults, implemented exactly by the simulator. */
export const DEFAULT_SHAPE: ServiceShape = Object.freeze({
  pagination: {
    style: 'page',
    pageParam: 'page',
    pageSizeParam: 'pageSize',
    pageSize: 500,
    firstPage: 1,
    totalItemsPath: 'totalItems',
    totalPagesPath: 'totalPages',
  },
  itemsPath: 'items',
  window: { startParam: 'startDate', endParam: 'endDate', dateFormat: 'iso-instant' },
  timeline: { path: '/v2/transactions/timeline', lastModifiedDateFormat: 'iso-instant' },
  dateBounds: { earliestPath: 'earliestDate', latestPath: 'latestDate' },
  metadata: { protocolsPath: 'defiProtocols' },
  fields: {
    id: 'id',
    date: 'date',
    type: 'type',
    subType: 'subType',
    category: 'category',
    protocol: 'protocol',
    hash: 'hash',
    accountId: 'accountId',
    ledgerId: 'ledgerId',
    movements: 'movements',
    movementSymbol: 'symbol',
    movementAmount: 'amount',
    movementValue: 'value',
    valueAmount: 'value.amount',
    valueCurrency: 'value.currency',
    feeAmount: 'fee.amount',
    feeCurrency: 'fee.currency',
    feeSymbol: 'fee.symbol',
    feeQuantity: 'fee.quantity',
    lastModifiedDate: 'lastModifiedDate',
    sourceGuid: 'source.sourceGuid',
    sourceName: 'source.name',
    deleted: 'deleted',
  },
  instants: DEFAULT_INSTANT_READING,
  balances: { source: 'ledger-field', path: 'balances' },
} satisfies ServiceShape) as ServiceShape;

/** A partial shape as it appears in configuration: nested groups may be given in part. */
export interface ServiceShapeOverrides {
  pagination?: Pagination;
  itemsPath?: string | null;
  window?: Partial<ServiceShape['window']>;
  timeline?: Partial<ServiceShape['timeline']>;
  dateBounds?: Partial<ServiceShape['dateBounds']>;
  metadata?: Partial<ServiceShape['metadata']>;
  fields?: Partial<Omit<TransactionFieldMap, 'instants'>>;
  instants?: Partial<InstantReading>;
  /** Replaces the default balances source whole. */
  balances?: BalancesSource;
}

/**
 * Builds a full shape from the defaults and configuration overrides. A pagination override
 * replaces the default pagination whole, because its fields depend on its style.
 */
export function resolveShape(overrides: ServiceShapeOverrides = {}): ServiceShape {
  const instants = { ...DEFAULT_INSTANT_READING, ...overrides.instants };
  return {
    pagination: overrides.pagination ?? DEFAULT_SHAPE.pagination,
    itemsPath: overrides.itemsPath === undefined ? DEFAULT_SHAPE.itemsPath : overrides.itemsPath,
    window: { ...DEFAULT_SHAPE.window, ...overrides.window },
    timeline: { ...DEFAULT_SHAPE.timeline, ...overrides.timeline },
    dateBounds: { ...DEFAULT_SHAPE.dateBounds, ...overrides.dateBounds },
    metadata: { ...DEFAULT_SHAPE.metadata, ...overrides.metadata },
    fields: { ...DEFAULT_SHAPE.fields, ...overrides.fields, instants },
    instants,
    balances: overrides.balances ?? DEFAULT_SHAPE.balances,
  };
}
