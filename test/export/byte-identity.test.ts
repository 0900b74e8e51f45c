/**
 * The export's outputs stay byte-identical while its hot path changes: every CSV, every snapshot
 * record and the Transactions sheet's XML of fixed runs against the simulator, compared with the
 * digests the code before the change produced (`byte-identity.golden.json`; regenerate with
 * `npx tsx test/support/output-digests.ts --write` after a deliberate change of an output).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GOLDEN_FILE, type OutputDigests, SCENARIOS, scenarioDigests } from '../support/output-digests.ts';

const golden = JSON.parse(await readFile(GOLDEN_FILE, 'utf8')) as Record<string, OutputDigests>;

describe('outputs byte-identical to the recorded baseline', () => {
  for (const scenario of SCENARIOS) {
    it(`${scenario.name}: every CSV, the snapshot records and the Transactions sheet`, async () => {
      const expected = golden[scenario.name];
      expect(expected, `no golden digests for ${scenario.name}`).toBeDefined();
      expect(await scenarioDigests(scenario)).toEqual(expected);
    }, 120_000);
  }
});
