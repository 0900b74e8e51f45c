/**
 * Whether a shard's listing without a reported total is complete, shown without trusting the
 * listing to agree with itself. A service loses rows of a listing only where one page request ends
 * and the next begins (a page that starts a row late, a row deleted between two requests, a first
 * page that holds a row the offsets do not count): within one page its rows come one after
 * another. So a listing is complete once each of its page boundaries falls inside a page of
 * another listing of the very same transactions, which shows the rows on both sides of it with
 * nothing between them. Two listings that merely agree prove nothing when their boundaries fall
 * alike: a service that ignores the page size asked, or two sizes whose boundaries meet (4 and 3
 * meet every 12 rows), lose the very same rows in both.
 *
 * This module records where a listing's boundaries fell ({@link recordTrail}), which boundaries of
 * an earlier listing a later one covers, and which listing to ask for next ({@link nextPlan}):
 * another page size the service honours, or the same search newest first.
 */
import type { SortOrder } from '../../pbs/index.ts';

/** How one listing of a shard is asked for. */
export interface ListingPlan {
  order: SortOrder;
  /** Items a page asked for; null: the source's own size (it cannot be asked for another). */
  pageSize: number | null;
}

/** A row beside a page boundary: its id, and its instant in epoch ms (NaN when unknown). */
export interface Edge {
  id: string;
  at: number;
}

/**
 * Where a page after the first began: `position` rows came before it, the last of them `before`;
 * `after` is that page's first row, or null when the listing ended there on an empty page (rows
 * after `before` could have been lost at that last request).
 */
export interface Boundary {
  position: number;
  before: Edge;
  after: Edge | null;
}

/** What a listing's pages showed: how it was asked for, its rows and boundaries, the sizes served. */
export interface ListingTrail {
  plan: ListingPlan;
  rows: number;
  boundaries: Boundary[];
  /** Items of its longest page. */
  longest: number;
  /** A page came back longer than asked: the service ignores the page size asked. */
  ignoredSize: boolean;
}

/** Records one listing's pages, in order (see {@link recordTrail}). */
export interface TrailRecorder {
  /** The rows of the next page, as listed. */
  page(rows: readonly Edge[]): void;
  /** The listing's trail, and the boundaries of the earlier listing (if any) that this one covers. */
  finish(): { trail: ListingTrail; covered: ReadonlySet<Boundary> };
}

/**
 * Records where the pages of a listing asked for as `plan` (`asked` items a page, null when
 * unknown) began, and checks it against `earlier`, a listing of the same shard whose boundaries it
 * may cover. In the same order, a boundary is covered when this listing has its two rows next to
 * each other within one page (rows of one instant are taken to keep their order between listings
 * of one order: paging by position relies on it), and an end on an empty page when this listing
 * ends on a page that holds its last row. In the other order, where rows of one instant may come in
 * any order, by instants: a page of this listing must hold rows strictly before and strictly after
 * the boundary's instants (or start the listing, or end it), so every row between them is in it.
 */
export function recordTrail(
  plan: ListingPlan,
  asked: number | null,
  earlier: ListingTrail | null,
): TrailRecorder {
  const boundaries: Boundary[] = [];
  const check = earlier === null ? null : coverageCheck(earlier, plan.order);
  let rows = 0;
  let pages = 0;
  let longest = 0;
  let ignoredSize = false;
  let last: Edge | null = null;
  let lastPageRows = 0;
  return {
    page(items) {
      const first = items[0];
      if (pages > 0 && last !== null && first !== undefined) {
        boundaries.push({ position: rows, before: last, after: first });
      }
      check?.page(items, pages);
      pages += 1;
      rows += items.length;
      longest = Math.max(longest, items.length);
      if (asked !== null && items.length > asked) ignoredSize = true;
      lastPageRows = items.length;
      last = items[items.length - 1] ?? last;
    },
    finish() {
      // An empty last page after rows: the rows after the last one listed rest on that request.
      if (pages > 1 && lastPageRows === 0 && last !== null) {
        boundaries.push({ position: rows, before: last, after: null });
      }
      const trail: ListingTrail = { plan, rows, boundaries, longest, ignoredSize };
      const endedOn = lastPageRows > 0 ? last : null;
      return { trail, covered: check === null ? new Set() : check.finish(endedOn) };
    },
  };
}

interface CoverageCheck {
  page(items: readonly Edge[], index: number): void;
  /** The covered boundaries; `endedOn`: the last row, when the listing ended on a page holding it. */
  finish(endedOn: Edge | null): Set<Boundary>;
}

function coverageCheck(earlier: ListingTrail, order: SortOrder): CoverageCheck {
  return earlier.plan.order === order ? sameOrderCheck(earlier) : otherOrderCheck(earlier, order);
}

/** Same order: a boundary is covered when its two rows are neighbours within one page. */
function sameOrderCheck(earlier: ListingTrail): CoverageCheck {
  const byBefore = new Map(earlier.boundaries.map((boundary) => [boundary.before.id, boundary]));
  const covered = new Set<Boundary>();
  return {
    page(items) {
      for (let i = 1; i < items.length; i++) {
        const boundary = byBefore.get((items[i - 1] as Edge).id);
        if (boundary?.after?.id === (items[i] as Edge).id) covered.add(boundary);
      }
    },
    finish(endedOn) {
      for (const boundary of earlier.boundaries) {
        if (boundary.after === null && endedOn !== null && endedOn.id === boundary.before.id) {
          covered.add(boundary);
        }
      }
      return covered;
    },
  };
}

/** The instants a page spans, and where it lies in its listing. */
interface PageSpan {
  min: number;
  max: number;
  first: boolean;
}

/**
 * The other order: a boundary of instants `[lo, hi]` is covered by a page that holds a row before
 * `lo` (or starts the listing at its oldest rows, or ends it there) and one after `hi` (likewise at
 * the newest): every row dated between them, whatever order rows of one instant came in, is in it.
 */
function otherOrderCheck(earlier: ListingTrail, order: SortOrder): CoverageCheck {
  const spans: PageSpan[] = [];
  return {
    page(items, index) {
      if (items.length === 0) return;
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (const item of items) {
        if (item.at < min) min = item.at;
        if (item.at > max) max = item.at;
      }
      spans.push({ min, max, first: index === 0 });
    },
    finish(endedOn) {
      const covered = new Set<Boundary>();
      const lastSpan = endedOn === null ? undefined : spans[spans.length - 1];
      for (const boundary of earlier.boundaries) {
        const [lo, hi] = instantsBetween(boundary, earlier.plan.order);
        const holds = spans.some((span) => {
          // The oldest rows are at the start of an oldest-first listing, at the end of a newest-first one.
          const ends = span === lastSpan;
          const oldestOpen = order === 'asc' ? span.first : ends;
          const newestOpen = order === 'asc' ? ends : span.first;
          return (oldestOpen || span.min < lo) && (newestOpen || span.max > hi);
        });
        if (holds) covered.add(boundary);
      }
      return covered;
    },
  };
}

/** The instants a row lost at `boundary` of a listing in `order` would have, as `[lo, hi]`. */
function instantsBetween(boundary: Boundary, order: SortOrder): [number, number] {
  const { before, after } = boundary;
  if (order === 'asc') return [before.at, after?.at ?? Number.POSITIVE_INFINITY];
  return [after?.at ?? Number.NEGATIVE_INFINITY, before.at];
}

/**
 * Items a page of a confirming listing when the first has no boundary left to cover (it was one
 * page): one fewer than `pageSize` (two for pages of one item), as before boundaries were checked.
 */
export function confirmingPageSize(pageSize: number): number {
  return pageSize > 1 ? pageSize - 1 : 2;
}

/** What the fetch knows of how the service pages a shard, over its listings so far. */
export interface ServicePaging {
  /** The source's pagination is known (a source without a shape pages in ways the fetch cannot predict). */
  known: boolean;
  /** The source pages with the size asked for (page numbers, offsets, a cursor with a limit). */
  sizeChoosable: boolean;
  /** The configured page size, when known. */
  configured: number | null;
  /** The fetch reads each transaction's instant: a listing in the other order can be compared. */
  datesKnown: boolean;
  /** Items of the longest page served. */
  longest: number;
  /** Some listing came back with a page longer than asked. */
  ignoresSize: boolean;
}

/**
 * The next listing to ask for to cover the `open` boundaries of `target` (a listing of `rows`
 * rows), other than those `tried`: the plan whose page boundaries, predicted from where the target's
 * fell, leave the most of them inside a page (the same order first, then larger pages), or null
 * when none would cover any. Page sizes go from the longest page served down to half of it (at most
 * twice the requests), then smaller ones, never above it: a service that served no longer page may
 * cap there or refuse a larger size. When the service ignores the size asked, only the other order
 * is left. With no
 * boundary open, another page size (see {@link confirmingPageSize}) confirms the same transactions.
 * A source whose pagination is unknown is listed again as it pages: only the listing shows where.
 */
export function nextPlan(
  target: ListingTrail,
  open: readonly Boundary[],
  tried: readonly ListingPlan[],
  paging: ServicePaging,
): ListingPlan | null {
  const sized = paging.sizeChoosable && !paging.ignoresSize;
  if (!paging.known) return { order: target.plan.order, pageSize: null };
  if (open.length === 0) {
    const size = target.plan.pageSize ?? paging.configured;
    return { order: target.plan.order, pageSize: sized && size !== null ? confirmingPageSize(size) : null };
  }
  return (
    bestPlan(target, open, tried, paging, candidateSizes(paging, sized)) ??
    bestPlan(target, open, tried, paging, candidateSizes(paging, sized, true))
  );
}

/** Of `sizes` in either order, the plan not yet tried predicted to cover the most of `open`. */
function bestPlan(
  target: ListingTrail,
  open: readonly Boundary[],
  tried: readonly ListingPlan[],
  paging: ServicePaging,
  sizes: readonly (number | null)[],
): ListingPlan | null {
  let best: { plan: ListingPlan; covers: number } | null = null;
  for (const order of ordersFrom(target.plan.order, paging.datesKnown)) {
    for (const pageSize of sizes) {
      const plan = { order, pageSize };
      // A service that ignores the size asked paged every listing of an order alike.
      const alike = (other: ListingPlan) =>
        other.order === order && (other.pageSize === pageSize || (pageSize === null && paging.ignoresSize));
      if (tried.some(alike)) continue;
      const same = order === target.plan.order;
      const size = pageSize ?? paging.longest;
      const covers = open.filter((boundary) => predictedCovered(boundary, target.rows, size, same)).length;
      if (covers > (best?.covers ?? 0)) best = { plan, covers };
    }
  }
  return best?.plan ?? null;
}

/** The target's own order first, then the other one when instants can be compared. */
function ordersFrom(order: SortOrder, datesKnown: boolean): SortOrder[] {
  const other: SortOrder = order === 'asc' ? 'desc' : 'asc';
  return datesKnown ? [order, other] : [order];
}

/**
 * Page sizes to try, largest first: from the longest page served down to half of it (to 2 for
 * small pages), or with `smaller` the sizes below those, down to 2 (more requests, when none of
 * the first would cover a boundary).
 */
function candidateSizes(paging: ServicePaging, sized: boolean, smaller = false): (number | null)[] {
  if (!sized) return smaller ? [] : [null];
  const longest = Math.max(1, paging.longest);
  const half = longest <= 8 ? 2 : Math.ceil(longest / 2);
  const [from, to] = smaller ? [half - 1, 2] : [longest, half];
  const sizes: number[] = [];
  for (let size = from; size >= to; size--) sizes.push(size);
  return sizes;
}

/**
 * Whether a listing of `size` items a page would cover `boundary` of a target of `rows` rows, the
 * rows coming back alike: in the same order it pages at multiples of `size`; in the other, at
 * `rows` less multiples of `size`, and must keep the rows either side of the boundary's two in one
 * page (rows of one instant aside, which only the listing itself shows).
 */
function predictedCovered(boundary: Boundary, rows: number, size: number, sameOrder: boolean): boolean {
  const at = boundary.position;
  if (sameOrder) {
    // It must end on a page shorter than its size, holding the target's last row.
    if (boundary.after === null) return size < rows && rows % size !== 0;
    return at % size !== 0;
  }
  const splits = (position: number) => position > 0 && position < rows && (rows - position) % size === 0;
  if (boundary.after === null) return rows >= 2 && !splits(rows - 1);
  return at >= 2 && !splits(at - 1) && !splits(at) && !splits(at + 1);
}

/**
 * Why no listing the service allows can cover `boundary` of `target`, for the shard's error: the
 * sizes and orders there were to choose from.
 */
export function whyUncoverable(target: ListingTrail, boundary: Boundary, paging: ServicePaging): string {
  const where = `the page boundary after row ${boundary.position} of ${target.rows}`;
  const otherOrder = target.plan.order === 'asc' ? 'newest-first' : 'oldest-first';
  const other = paging.datesKnown
    ? `nor would a ${otherOrder} listing`
    : `and without the transactions' instants a ${otherOrder} listing cannot be compared`;
  if (paging.ignoresSize) {
    return `${where}: the service sends ${paging.longest} rows a page whatever page size is asked, so every listing pages there, ${other}`;
  }
  if (!paging.sizeChoosable) {
    return `${where}: the service's page size cannot be chosen, so every listing pages there, ${other}`;
  }
  const range = `2 to ${Math.max(2, paging.longest)}`;
  return `${where}: every page size from ${range} pages there too, ${other}`;
}
