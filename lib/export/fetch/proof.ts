/**
 * The fetch's side of showing a listing without a total complete (see `coverage.ts`): what it
 * knows of how the source pages, which listing to ask for next, and what the shard records of the
 * listings that showed it.
 */
import type { Pagination, SortOrder } from '../../pbs/index.ts';
import {
  type Boundary,
  type ListingPlan,
  type ListingTrail,
  nextPlan,
  type ServicePaging,
  whyUncoverable,
} from './coverage.ts';
import { UnprovableShardError } from './errors.ts';

/** The most listings, besides the one they confirm, that may be asked for to cover its boundaries. */
export const CONFIRMING_LISTINGS_MAX = 4;

/** What {@link Proof} needs of a listing. */
export interface ProvenListing {
  plan: ListingPlan;
  trail: ListingTrail;
}

/**
 * A listing without a total being shown complete: its page boundaries still `open` (no later
 * listing of the same ids had them inside a page), the plans asked against it (its own first), and
 * those later listings.
 */
export interface Proof<L extends ProvenListing> {
  target: L;
  open: Boundary[];
  tried: ListingPlan[];
  agreeing: L[];
}

/**
 * How a source pages, as far as known before listing: whether its page size can be chosen (its
 * `pagination` takes one: page numbers, offsets, a cursor with a limit parameter), the configured
 * one, and whether the fetch reads the transactions' instants (`datesKnown`).
 */
export function servicePagingOf(pagination: Pagination | undefined, datesKnown: boolean): ServicePaging {
  const configured =
    pagination === undefined ? null : pagination.style === 'page' ? pagination.pageSize : pagination.limit;
  // A cursor service that takes no limit pages as it likes: no other size can be asked for.
  const sizeChoosable =
    pagination !== undefined && !(pagination.style === 'cursor' && pagination.limitParam === null);
  const known = pagination !== undefined;
  return { known, sizeChoosable, configured, datesKnown, longest: 0, ignoresSize: false };
}

/**
 * The next listing's plan: oldest first with the configured size for a first listing, else the one
 * that covers the most boundaries still open (see {@link nextPlan}). Throws
 * {@link UnprovableShardError} when no listing the service allows would cover any, or when
 * {@link CONFIRMING_LISTINGS_MAX} listings left some open.
 */
export function planAfter<L extends ProvenListing>(
  proof: Proof<L> | null,
  paging: ServicePaging,
  shardId: string,
): ListingPlan {
  if (proof === null) return { order: 'asc', pageSize: paging.sizeChoosable ? paging.configured : null };
  const { target, open, tried, agreeing } = proof;
  const more = agreeing.length < CONFIRMING_LISTINGS_MAX;
  const plan = more ? nextPlan(target.trail, open, tried, paging) : null;
  if (plan !== null) return plan;
  const first = open[0] as Boundary;
  const reason = more
    ? whyUncoverable(target.trail, first, paging)
    : `${agreeing.length} more listings left ${open.length} of its page boundaries uncovered, ` +
      `the first after row ${first.position} of ${target.trail.rows}`;
  throw new UnprovableShardError(shardId, reason);
}

/**
 * For a listing shown complete by others (`shownBy`, the first listing and those that covered its
 * boundaries, the accepted one last): the page size each asked when the fetch chose them all, with
 * their orders when one was newest first.
 */
export function confirmedBy(shownBy: readonly ProvenListing[]): {
  pageSizes?: readonly number[];
  orders?: readonly SortOrder[];
} {
  const sizes = shownBy.map((listing) => listing.plan.pageSize);
  if (sizes.length === 0 || sizes.some((size) => size === null)) return {};
  const orders = shownBy.map((listing) => listing.plan.order);
  return { pageSizes: sizes as number[], ...(orders.includes('desc') ? { orders } : {}) };
}
