import { untilAborted } from '../abort.ts';
import type { RawTimelineItem, ReportedBalance, TimelineQuery } from '../pbs/index.ts';
import type { TransactionPageSource } from './fetch/index.ts';
import type { PlanSource } from './plan/index.ts';

/** What an export needs of the service client: its bounds and protocols (plan), pages (fetch), changes. */
export interface ExportServiceClient extends PlanSource, TransactionPageSource {
  timeline(query?: TimelineQuery): AsyncIterable<RawTimelineItem>;
  /**
   * Whether any answer so far came from the project's simulator (it marks every answer, see
   * `pbs/demo-data.ts`): the export's files are then marked as demo data. Absent: never.
   */
  servedDemoData?(): boolean;
  /**
   * Every ledger's reported balances (GAPS.md "Reported balances"), null when the service reports
   * none. Absent: the client cannot ask, and reconciliation says "not reconciled".
   */
  reportedBalances?(): Promise<ReportedBalance[] | null>;
}

/** Whether `client` has had an answer from the project's simulator (see `servedDemoData`). */
export function servedDemoData(client: Pick<ExportServiceClient, 'servedDemoData'>): boolean {
  return client.servedDemoData?.() === true;
}

/**
 * The client, stopped by `signal`: once it fires, a call or listing under way rejects at once with
 * the signal's reason (the request itself ends on its own timeout, unread), and nothing more is
 * asked of the service. The fetch then fails like any shard that cannot be read, starts no
 * further shard, and the run cleans up. Wrapping keeps the signal out of the client's internals.
 */
export function abortableClient(client: ExportServiceClient, signal: AbortSignal): ExportServiceClient {
  return {
    ...(client.schedulesRequests !== undefined ? { schedulesRequests: client.schedulesRequests } : {}),
    // The fetch reads the page size from it, to confirm a listing without a total with another.
    ...(client.shape !== undefined ? { shape: client.shape } : {}),
    servedDemoData: () => servedDemoData(client),
    dateBounds: () => untilAborted(() => client.dateBounds(), signal),
    defiProtocols: () => untilAborted(() => client.defiProtocols(), signal),
    ...(client.reportedBalances === undefined
      ? {}
      : {
          reportedBalances: () =>
            untilAborted(
              () => (client.reportedBalances as () => Promise<ReportedBalance[] | null>)(),
              signal,
            ),
        }),
    timeline: (query) => abortableIterable(() => client.timeline(query), signal),
    transactionPages: (query, requests) =>
      abortableIterable(() => client.transactionPages(query, requests), signal),
  };
}

/** Items of the iterable `open` returns, until `signal` fires; then the next one rejects. */
export function abortableIterable<T>(open: () => AsyncIterable<T>, signal: AbortSignal): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      signal.throwIfAborted();
      const iterator = open()[Symbol.asyncIterator]();
      // Queued behind a pending next(), so never awaited: the caller must not wait for it.
      const close = () => {
        iterator.return?.().catch(() => {});
      };
      return {
        next: () => untilAborted(() => iterator.next(), signal, close),
        async return(value?: unknown): Promise<IteratorResult<T>> {
          if (signal.aborted) return { done: true, value: undefined };
          return iterator.return ? iterator.return(value) : { done: true, value: undefined };
        },
      };
    },
  };
}
