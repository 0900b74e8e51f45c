/**
 * Global setup of the faults suite: creates the figures file before the tests and prints the
 * figure tables after them.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIGURE_TABLES, FIGURES_FILE_ENV, type FigureTable } from './figures.ts';

const TITLES: Record<FigureTable, string> = {
  faults: 'Faults (service, network, S3, process): injected / survived / data lost',
  badInput: 'Bad input (HTTP API, CLI, requests): tried / rejected cleanly',
  hostileData: 'Hostile data from the service: values / read back exactly / formulas reaching a sheet',
  load: 'Load (concurrent jobs through the handlers): rate-limit violations / starved jobs / peak RSS',
  security: 'Security (isolation, secrets, IAM): checks / passed / leaks',
  kills:
    'CLI runs killed at seeded instants (kill -9, SIGINT, SIGTERM): killed (of them by kill -9 while publishing) / stopped cleanly / finished anyway / looked finished while incomplete / runs with files at final names but no manifest, right after the kill / of them completed by a later run / still so after the next run (must be 0) / scratch and staging left after the next run',
};

interface Line {
  table: FigureTable;
  name: string;
  row: Record<string, number>;
}

/** Sums rows by name; `peakRssMb` keeps the maximum. */
export function aggregate(lines: readonly Line[]): Map<FigureTable, Map<string, Record<string, number>>> {
  const tables = new Map<FigureTable, Map<string, Record<string, number>>>();
  for (const { table, name, row } of lines) {
    const rows = tables.get(table) ?? new Map<string, Record<string, number>>();
    tables.set(table, rows);
    const into = rows.get(name) ?? {};
    rows.set(name, into);
    for (const [column, value] of Object.entries(row)) {
      into[column] =
        column === 'peakRssMb' ? Math.max(into[column] ?? 0, value) : (into[column] ?? 0) + value;
    }
  }
  return tables;
}

/** The tables as text, each with a total row. */
export function formatTables(tables: Map<FigureTable, Map<string, Record<string, number>>>): string {
  const out: string[] = [];
  for (const table of Object.keys(FIGURE_TABLES) as FigureTable[]) {
    const rows = tables.get(table);
    if (rows === undefined) continue;
    const columns = FIGURE_TABLES[table] as readonly string[];
    const total: Record<string, number> = {};
    for (const row of rows.values()) {
      for (const column of columns) {
        const value = row[column] ?? 0;
        total[column] =
          column === 'peakRssMb' ? Math.max(total[column] ?? 0, value) : (total[column] ?? 0) + value;
      }
    }
    const body = [...rows.entries()].sort(([a], [b]) => a.localeCompare(b));
    const grid = [
      ['', ...columns],
      ...body.map(([name, row]) => [name, ...columns.map((c) => String(Math.round(row[c] ?? 0)))]),
      ['TOTAL', ...columns.map((c) => String(Math.round(total[c] ?? 0)))],
    ];
    const widths = grid[0]?.map((_, i) => Math.max(...grid.map((r) => (r[i] ?? '').length))) ?? [];
    out.push('', TITLES[table]);
    for (const row of grid) {
      out.push(
        `  ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join('  ')}`,
      );
    }
  }
  return out.join('\n');
}

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'pbs-faults-figures-'));
  const file = join(dir, 'figures.jsonl');
  process.env[FIGURES_FILE_ENV] = file;
  return () => {
    const lines = existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as Line)
      : [];
    console.log(`\npbs-export faults suite: figures\n${formatTables(aggregate(lines))}\n`);
    rmSync(dir, { recursive: true, force: true });
  };
}
