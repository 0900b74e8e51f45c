/**
 * A window's piece of a run, made where its shard was fetched (a Lambda fetch-shard task): the
 * window assembled alone (its gzip member of the snapshot, see `assembleWindow`), its rows of each
 * report rendered (as CSV for the CSV files, as JSON lines of cells for the workbook's sheets), its
 * totals; so that the finish only joins the pieces (`join-pieces.ts`). Only runs whose every
 * output is such a join have pieces ({@link joinsWindows}).
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { TableSpec } from '../domain/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';
import type { FetchedShard } from './fetch/index.ts';
import { type ExportPlan, type ExportRequest, keptRange } from './plan/index.ts';
import {
  type CurrencyTotal,
  createReportModel,
  LiveAbandonedError,
  type RowChannel,
  writeCsv,
} from './report/index.ts';

import { writeRowLines } from './row-lines.ts';
import { type AssembledWindow, assembleWindow } from './snapshot/index.ts';

/** The reports a joined run may hold: the tables rendered row by row, nothing over the whole run. */
const JOINED_REPORTS: ReadonlySet<string> = new Set(['transactions', 'movements']);

/**
 * Whether the finish of `request` over `plan` can join window pieces: CSV and XLSX (the workbook
 * is written by the finish, from the rows the pieces rendered), the transactions and movements
 * reports only (no summary tables, gains or changes, which need every window at once), windows of
 * a month or a year (each month of the manifest's totals lies in one window), and one shard per
 * window (a window searched protocol by protocol is merged from several).
 */
export function joinsWindows(request: ExportRequest, plan: ExportPlan): boolean {
  const joined = (format: string) => format === 'csv' || format === 'xlsx';
  if (request.formats.length === 0 || !request.formats.every(joined)) return false;
  if (request.reports.some((report) => !JOINED_REPORTS.has(report))) return false;
  if (request.gains !== undefined || request.changesSince !== undefined) return false;
  if (request.adjustments !== undefined) return false;
  if (request.window !== 'month' && request.window !== 'year') return false;
  const shards = new Map<number, number>();
  for (const shard of plan.shards) shards.set(shard.window.index, (shards.get(shard.window.index) ?? 0) + 1);
  return plan.windows.every((window) => shards.get(window.index) === 1);
}

/** One report's rows of a window: its CSV file (header, then rows) and its rows as JSON lines, as requested. */
export interface PieceTable {
  name: string;
  /** The table's spec as the window's rows fixed it (the finish checks every window's agree). */
  spec: TableSpec;
  /**
   * The spec as the window's every row sizes it (`Column.width` of its widest number): a run's
   * workbook sizes the sheets after its first by every row (the first by the first window's).
   */
  wholeSpec: TableSpec;
  /** The CSV file as the window renders it (header, then its rows), when the run writes CSV. */
  csv: { file: string; headerBytes: number } | null;
  /** The rows as JSON lines (`row-lines.ts`), when the run writes a workbook. */
  lines: string | null;
  rows: number;
}

/** A window's piece, its files in the task's scratch folder. */
export interface WindowPiece {
  /** The window's gzip member of the snapshot. */
  memberFile: string;
  assembled: AssembledWindow;
  /** Every live report's rows (none when the window has no transaction). */
  tables: PieceTable[];
  totals: Map<string, CurrencyTotal>;
}

/** What {@link makeWindowPiece} uses. */
export interface PieceDeps {
  fields: TransactionFieldMap;
  /** When the export started (the plan's): the model's clock. */
  startedAt: Date;
  /** The task's scratch folder. */
  workDir: string;
}

/**
 * The piece of `part`'s window, or null when the window cannot be joined: its search returned
 * another window's transactions, copies of an id differ, or a later transaction of the window
 * brought a column its first ones did not have.
 */
export async function makeWindowPiece(
  request: ExportRequest,
  plan: ExportPlan,
  part: FetchedShard,
  deps: PieceDeps,
): Promise<WindowPiece | null> {
  const position = plan.windows.findIndex((window) => window.index === part.shard.window.index);
  // The window's files, written as its rows come (the CSV half of `createLiveOutputs`, and for a
  // workbook the rows as lines: this task's bundle carries no XLSX library).
  const written = new Map<string, WrittenTable>();
  const channels: RowChannel[] = [];
  /** Reads `channel` into its file; a writer that fails stops reading (the error is the finish's). */
  const writing = (channel: RowChannel, write: Promise<number>) => {
    channels.push(channel);
    write.catch((error: unknown) => channel.fail(error instanceof Error ? error : new Error(String(error))));
    return write;
  };
  const model = createReportModel(deps.fields, request, {
    spoolDir: deps.workDir,
    now: () => deps.startedAt,
    live: {
      open(tables) {
        for (const spec of tables.specs) {
          const table: WrittenTable = { spec, csv: null, lines: null };
          if (request.formats.includes('csv')) {
            const channel = tables.channel(spec.name);
            const file = join(deps.workDir, `window-${spec.name}.csv`);
            const done = writing(
              channel,
              writeCsv(channel, createWriteStream(file), request.csv).then((r) => r.rows),
            );
            table.csv = { file, done };
          }
          if (request.formats.includes('xlsx')) {
            const channel = tables.channel(spec.name);
            const file = join(deps.workDir, `window-${spec.name}.rows`);
            table.lines = { file, done: writing(channel, writeRowLines(channel, createWriteStream(file))) };
          }
          written.set(spec.name, table);
        }
      },
    },
  });
  const stop = async (error: Error) => {
    for (const channel of channels) channel.fail(error);
    await Promise.allSettled([...written.values()].flatMap((table) => [table.csv?.done, table.lines?.done]));
  };
  const memberFile = join(deps.workDir, `window-${part.shard.window.index}.ndjson.gz`);
  let assembled: AssembledWindow | null;
  try {
    assembled = await assembleWindow({
      windows: plan.windows,
      range: keptRange(request, plan.windows),
      position,
      part,
      fields: deps.fields,
      memberFile,
      onWindow: (records) => model.lookAhead(records),
      onRecord: (record) => model.observe(record),
    });
  } catch (error) {
    await stop(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  const complete = model.endLive();
  if (assembled === null || (written.size > 0 && !complete)) {
    await stop(new LiveAbandonedError('the window is left to the finish'));
    return null;
  }
  const tables: PieceTable[] = [];
  // Only specs are read of the model's tables (their rows would be read from a snapshot).
  const whole = new Map(model.tables('').map((table) => [table.spec.name, table.spec]));
  for (const [name, table] of written) {
    // A row a writer refuses (a cell it cannot write) is the finish's to report, as the CLI does.
    const counts = await Promise.all(
      [table.csv?.done, table.lines?.done].map((done) => done?.catch(() => null)),
    );
    if (counts.some((rows) => rows === null)) return null;
    tables.push({
      name,
      spec: table.spec,
      wholeSpec: whole.get(name) ?? table.spec,
      csv: table.csv && { file: table.csv.file, headerBytes: await csvHeaderBytes(table.spec, request) },
      lines: table.lines?.file ?? null,
      rows: counts.find((rows) => rows !== undefined) ?? 0,
    });
  }
  return { memberFile, assembled, tables, totals: model.currencyTotals() };
}

/** A live table's files being written, each with its count of rows once done. */
interface WrittenTable {
  spec: TableSpec;
  csv: { file: string; done: Promise<number> } | null;
  lines: { file: string; done: Promise<number> } | null;
}

/** Bytes `writeCsv` writes for `spec` before its first row (byte order mark, header row). */
async function csvHeaderBytes(spec: TableSpec, request: ExportRequest): Promise<number> {
  let bytes = 0;
  const counter = new Writable({
    write(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done();
    },
  });
  await writeCsv({ spec, rows: async function* () {} }, counter, request.csv);
  return bytes;
}
