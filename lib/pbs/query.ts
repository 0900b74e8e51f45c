import { ValidationError } from '../errors.ts';
import type { PbsLogger } from './config.ts';
import type { SortKey, SortOrder, TimelineQuery, TransactionQuery } from './model.ts';
import type { DateFormat, ServiceShape } from './shape.ts';

/** Query parameters in order; a name may repeat. */
export type QueryParams = [string, string][];

const SORT_KEYS: readonly SortKey[] = ['date', 'value', 'fee'];
const SORT_ORDERS: readonly SortOrder[] = ['asc', 'desc'];

/**
 * Writes an instant in a wire format. `iso-date` gives the instant's UTC calendar date, so a
 * day-granular service returns a superset: callers filter by the exact instant.
 */
export function formatInstant(date: Date, format: DateFormat): string {
  switch (format) {
    case 'iso-instant':
      return date.toISOString();
    case 'epoch-millis':
      return String(date.getTime());
    case 'iso-date':
      return date.toISOString().slice(0, 10);
  }
}

/**
 * Writes the `[start, end)` window in a wire format. For `iso-date` (whose end is inclusive) the
 * end is the UTC date of `end − 1 ms`: the service answers whole days, a superset of the window
 * at day granularity, so callers must filter by date themselves.
 */
export function formatWindow(
  window: { start: Date; end: Date },
  format: DateFormat,
): { start: string; end: string } {
  if (format === 'iso-date') {
    return {
      start: formatInstant(window.start, format),
      end: formatInstant(new Date(window.end.getTime() - 1), format),
    };
  }
  return { start: formatInstant(window.start, format), end: formatInstant(window.end, format) };
}

/** Throws `ValidationError` naming the first invalid argument of a transaction query. */
export function validateTransactionQuery(query: TransactionQuery): void {
  if (query.sort !== undefined && !SORT_KEYS.includes(query.sort)) {
    throw new ValidationError('sort', `must be one of ${SORT_KEYS.join(', ')}`);
  }
  if (query.order !== undefined && !SORT_ORDERS.includes(query.order)) {
    throw new ValidationError('order', `must be one of ${SORT_ORDERS.join(', ')}`);
  }
  if (query.window !== undefined) {
    const { start, end } = query.window;
    if (!isValidDate(start)) throw new ValidationError('window.start', 'must be a valid Date');
    if (!isValidDate(end)) throw new ValidationError('window.end', 'must be a valid Date');
    if (start.getTime() >= end.getTime()) throw new ValidationError('window', 'start must be before end');
  }
  if (query.tokens !== undefined) {
    if (!Array.isArray(query.tokens))
      throw new ValidationError('tokens', 'must be an array of token symbols');
    query.tokens.forEach((token, index) => {
      if (typeof token !== 'string' || token.trim() === '') {
        throw new ValidationError(`tokens[${index}]`, 'must be a non-blank token symbol');
      }
    });
  }
  requireNonBlank(query.category, 'category');
  requireNonBlank(query.protocol, 'protocol');
  requireNonBlank(query.hash, 'hash');
}

/**
 * Builds the parameters of GET /v2/transactions: `t` per token, `cf`, `p`, `h`, `sort`, `order`,
 * then the window. With `hash`, `h` goes alone (the spec: h makes the service ignore every other
 * filter) and a warning names the filters dropped; `sort`/`order` still go, they are not filters.
 */
export function transactionParams(
  query: TransactionQuery,
  shape: ServiceShape,
  logger: PbsLogger,
): QueryParams {
  validateTransactionQuery(query);
  const params: QueryParams = [];
  if (query.hash !== undefined) {
    const dropped: string[] = [];
    if (query.tokens !== undefined && query.tokens.length > 0) dropped.push('t');
    if (query.category !== undefined) dropped.push('cf');
    if (query.protocol !== undefined) dropped.push('p');
    if (query.window !== undefined) dropped.push(`${shape.window.startParam}/${shape.window.endParam}`);
    if (dropped.length > 0) {
      logger.warn(`Transaction query has h: dropping the other filters (${dropped.join(', ')})`, { dropped });
    }
    params.push(['h', query.hash]);
  } else {
    for (const token of query.tokens ?? []) params.push(['t', token]);
    if (query.category !== undefined) params.push(['cf', query.category]);
    if (query.protocol !== undefined) params.push(['p', query.protocol]);
  }
  if (query.sort !== undefined) params.push(['sort', query.sort]);
  if (query.order !== undefined) params.push(['order', query.order]);
  if (query.hash === undefined && query.window !== undefined) {
    const { start, end } = formatWindow(query.window, shape.window.dateFormat);
    params.push([shape.window.startParam, start], [shape.window.endParam, end]);
  }
  return params;
}

/** Builds the parameters of the timeline endpoint (`lastModifiedDate` in the shape's format). */
export function timelineParams(query: TimelineQuery, shape: ServiceShape): QueryParams {
  if (query.lastModifiedDate === undefined) return [];
  if (!isValidDate(query.lastModifiedDate))
    throw new ValidationError('lastModifiedDate', 'must be a valid Date');
  return [['lastModifiedDate', formatInstant(query.lastModifiedDate, shape.timeline.lastModifiedDateFormat)]];
}

function requireNonBlank(value: unknown, field: string): void {
  if (value === undefined) return;
  if (typeof value !== 'string' || value.trim() === '')
    throw new ValidationError(field, 'must be a non-blank string');
}

function isValidDate(value: unknown): value is Date {
  return value instanceof Date && !Number.isNaN(value.getTime());
}
