/**
 * Services that report no total and whose listings cannot be trusted to agree with themselves,
 * through the CLI as a user runs it (see `test/support/hostile-paging.ts`): 500 rows a page
 * whatever size is asked with a row lost at a page boundary, pages capped at 100 when 500 are
 * asked, a late page at a boundary two page sizes share. Each run exports every transaction or
 * fails cleanly (exit 1, no manifest); none publishes with transactions missing.
 *
 * Figures: `faults` (services injected / survived / data lost).
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  exportFromHostilePaging,
  HOSTILE_PAGING_CASES,
  judgeHostilePaging,
} from '../support/hostile-paging.ts';
import { recordFigures } from './support/figures.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('pbs-export run against services without totals whose listings disagree with themselves', () => {
  it.each(HOSTILE_PAGING_CASES.map((testCase) => [testCase.name, testCase] as const))(
    'exports every transaction or fails cleanly: %s',
    async (name, testCase) => {
      const run = await exportFromHostilePaging(
        testCase.paging,
        testCase.pagination,
        testCase.count,
        cleanups,
      );
      const { survived, dataLost } = judgeHostilePaging(testCase, run);
      recordFigures('faults', `service: no total, ${name}`, {
        injected: 1,
        survived: survived ? 1 : 0,
        dataLost: dataLost ? 1 : 0,
      });

      expect({ survived, dataLost, code: run.code }).toEqual({
        survived: true,
        dataLost: false,
        code: testCase.correct === 'all' ? 0 : 1,
      });
    },
  );
});
