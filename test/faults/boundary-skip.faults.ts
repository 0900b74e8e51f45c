/**
 * A service without totals that loses a row at a page boundary the same way on every listing (the
 * simulator's deterministic `boundarySkip`: the first row of page 2 is never listed). A second
 * listing with the same page size loses the very same row and agrees with the first, so agreement
 * alone proved nothing: the confirming listing must page with another size, its boundaries
 * elsewhere. End to end through `runExport` over loopback HTTP, checked against a clean export
 * and a clean listing of the simulator's data (the reference).
 */
import { describe, expect, it } from 'vitest';
import { parseExportRequest, UnconfirmedShardError } from '../../lib/export/index.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/index.ts';
import type { FaultOptions } from '../../lib/simulator/types.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';

const YEAR = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv'] });
/** Not 4: with 4 a page, no smaller page size covers the boundary at row 12 (4 × 3). */
const PAGE = 5;

/** Every pagination style that takes a page size, without totals. */
const SHAPES: [string, ServiceShapeOverrides][] = [
  [
    'page numbers',
    {
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: PAGE,
        firstPage: 1,
        totalItemsPath: null,
        totalPagesPath: null,
      },
    },
  ],
  [
    'offset/limit',
    {
      pagination: {
        style: 'offset',
        offsetParam: 'offset',
        limitParam: 'limit',
        limit: PAGE,
        totalItemsPath: null,
      },
    },
  ],
  [
    'a cursor with a limit parameter',
    {
      pagination: {
        style: 'cursor',
        cursorParam: 'cursor',
        limitParam: 'limit',
        limit: PAGE,
        next: { from: 'field', path: 'nextCursor' },
        totalItemsPath: null,
      },
    },
  ],
];

describe('a service without totals that skips the same row at a page boundary on every listing', () => {
  it.each(SHAPES)(
    'publishes nothing as complete with %s: UnconfirmedShardError, then a clean rerun',
    async (name, shape) => {
      const faults: FaultOptions = { boundarySkip: { items: 1 }, pathPrefix: '/v2/transactions' };
      const result = await exportUnderFaults({ request: YEAR, shape, faults });
      recordRun(`service: same row skipped at a page boundary, no total (${name})`, result);

      // The fault did lose rows: shards longer than one page were served without a row.
      expect(result.reference.transactions.length).toBeGreaterThan(PAGE);
      expect(result.faultKinds.boundarySkip).toBeGreaterThan(0);
      // Never a published run with rows missing from the service's data.
      expect(result.dataLost).toBe(false);
      expect(result.problems).toEqual([]);
      expect(result.completed).toBe(false);
      expect(result.error).toBeInstanceOf(UnconfirmedShardError);
      expect(result.reruns).toBe(1);
    },
  );
});
