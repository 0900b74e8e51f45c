/**
 * Figures of the faults suite. Each test records what it tried and what happened as a row of a
 * named table; the suite's global teardown (`global-setup.ts`) sums the rows by name and prints
 * the tables. Rows go to a JSON-lines file shared by every test worker (appends of one line each).
 */
import { appendFileSync } from 'node:fs';

/** The tables the suite prints, with their columns in order. */
export const FIGURE_TABLES = {
  faults: ['injected', 'survived', 'dataLost', 'reruns'],
  badInput: ['tried', 'rejectedCleanly', 'reachedService', 'crashed'],
  hostileData: ['values', 'readBackExactly', 'formulas'],
  load: ['jobs', 'requests', 'status429', 'rateLimitViolations', 'starved', 'peakRssMb'],
  security: ['checks', 'passed', 'leaks'],
  kills: [
    'killed',
    'killedWhilePublishing',
    'stopped',
    'finishedAnyway',
    'lookedFinishedIncomplete',
    'filesWithoutManifest',
    'completedLater',
    'withoutManifestAfterNextRun',
    'scratchLeft',
    'stagingLeft',
  ],
} as const;

/** One of the tables. */
export type FigureTable = keyof typeof FIGURE_TABLES;
/** One row's figures: a number per column of its table (missing columns count as 0). */
export type FigureRow<T extends FigureTable> = Partial<Record<(typeof FIGURE_TABLES)[T][number], number>>;

/** Environment variable naming the figures file, set by the global setup. */
export const FIGURES_FILE_ENV = 'PBS_FAULTS_FIGURES_FILE';

/**
 * Records one row of `table` under `name` (rows with the same name are summed, except `peakRssMb`
 * which keeps the maximum). Without the suite's global setup (a test file run alone) it does nothing.
 */
export function recordFigures<T extends FigureTable>(table: T, name: string, row: FigureRow<T>): void {
  const file = process.env[FIGURES_FILE_ENV];
  if (file === undefined || file === '') return;
  appendFileSync(file, `${JSON.stringify({ table, name, row })}\n`);
}
