/**
 * Shared pieces of the bad-input and hostile-data fault tests: the fast-check settings (seeded,
 * overridable from the environment) and a tally of what was tried that becomes a figures row.
 */
import { type FigureRow, type FigureTable, recordFigures } from './figures.ts';

/**
 * Seed of every property of the fault tests: fixed so CI runs are reproducible, overridable with
 * `PBS_FUZZ_SEED` to explore other inputs. fast-check prints the seed and path of a failure.
 */
export const FUZZ_SEED = Number(process.env.PBS_FUZZ_SEED ?? 20_261_122);

/** Multiplies every `numRuns` (e.g. `PBS_FUZZ_RUNS=10` for a long local run). */
const RUNS_FACTOR = Number(process.env.PBS_FUZZ_RUNS ?? 1);

/** fast-check parameters: the suite's seed and `numRuns` scaled by `PBS_FUZZ_RUNS`. */
export function fuzzParameters(numRuns: number): { seed: number; numRuns: number } {
  return { seed: FUZZ_SEED, numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)) };
}

/** Counts of one figures row, recorded once with {@link Tally.record}. */
export class Tally<T extends FigureTable> {
  readonly counts: Record<string, number> = {};

  constructor(
    readonly table: T,
    readonly name: string,
  ) {}

  /** Adds `by` (default 1) to a column. */
  add(column: keyof FigureRow<T> & string, by = 1): void {
    this.counts[column] = (this.counts[column] ?? 0) + by;
  }

  /** The count of a column (0 when never added to). */
  get(column: keyof FigureRow<T> & string): number {
    return this.counts[column] ?? 0;
  }

  /** Records the row in the suite's figures. */
  record(): void {
    recordFigures(this.table, this.name, this.counts as FigureRow<T>);
  }
}
