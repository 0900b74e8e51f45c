/**
 * A window's piece of a run, made where its shard was fetched (a Lambda fetch-shard task): the
 * window assembled alone (its gzip member of the snapshot, see `assembleWindow`), its rows of each
 * CSV report rendered, its totals; so that the finish only joins the pieces (`join-pieces.ts`).
 * Only runs whose every output is such a join have pieces ({@link joinsWindows}).
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

import { type AssembledWindow, assembleWindow } from './snapshot/index.ts';

/** The reports a joined run may hold: the tables rendered row by row, nothing over the whole run. */
const JOINED_REPORTS: ReadonlySet<string> = new Set(['transactions', 'movements']);

/**
 * Whether the finish of `request` over `plan` can join window pieces: CSV only (a workbook is one
 * file over every window), the transactions and movements reports only (no summary tables, gains
 * or changes, which need every window at once), windows of a month or a year (each month of the
 * manifest's totals lies in one window), and one shard per window (a window searched protocol by
 * protocol is merged from several).
 */
export function joinsWindows(request: ExportRequest, plan: ExportPlan): boolean {
  if (request.formats.length === 0 || request.formats.some((format) => format !== 'csv')) return false;
  if (request.reports.some((report) => !JOINED_REPORTS.has(report))) return false;
  if (request.gains !== undefined || request.changesSince !== undefined) return false;
  if (request.adjustments !== undefined) return false;
  if (request.window !== 'month' && request.window !== 'year') return false;
  const shards = new Map<number, number>();
  for (const shard of plan.shards) shards.set(shard.window.index, (shards.get(shard.window.index) ?? 0) + 1);
  return plan.windows.every((window) => shards.get(window.index) === 1);
}

/** One CSV report's rows of a window: the file written (header, then rows) and its header's length. */
export interface PieceTable {
  name: string;
  /** The table's spec as the window's rows fixed it (the finish checks every window's agree). */
  spec: TableSpec;
  /** The CSV file as the window renders it: header, then its rows. */
  file: string;
  /** Bytes of the header (the byte order mark and the header row) at the start of `file`. */
  headerBytes: number;
  rows: number;
}

/** A window's piece, its files in the task's scratch folder. */
export interface WindowPiece {
  /** The window's gzip member of the snapshot. */
  memberFile: string;
  assembled: AssembledWindow;
  /** Every CSV report's rows (none when the window has no transaction). */
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
  // The window's CSV files, written as its rows come (the CSV half of `createLiveOutputs`,
  // without the workbook's writer: this task's bundle carries no XLSX library).
  const written = new Map<string, { spec: TableSpec; channel: RowChannel; done: Promise<number> }>();
  const model = createReportModel(deps.fields, request, {
    spoolDir: deps.workDir,
    now: () => deps.startedAt,
    live: {
      open(tables) {
        for (const spec of tables.specs) {
          const channel = tables.channel(spec.name);
          const file = join(deps.workDir, `window-${spec.name}.csv`);
          const done = writeCsv(channel, createWriteStream(file), request.csv).then(({ rows }) => rows);
          // A writer that fails stops reading: its channel drops further rows (the error is thrown below).
          done.catch((error: unknown) =>
            channel.fail(error instanceof Error ? error : new Error(String(error))),
          );
          written.set(spec.name, { spec, channel, done });
        }
      },
    },
  });
  const stop = async (error: Error) => {
    for (const { channel } of written.values()) channel.fail(error);
    await Promise.allSettled([...written.values()].map((table) => table.done));
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
  for (const [name, { spec, done }] of written) {
    // A row the writer refuses (a cell it cannot write) is the finish's to report, as the CLI does.
    const rows = await done.catch(() => null);
    if (rows === null) return null;
    tables.push({
      name,
      spec,
      file: join(deps.workDir, `window-${name}.csv`),
      headerBytes: await csvHeaderBytes(spec, request),
      rows,
    });
  }
  return { memberFile, assembled, tables, totals: model.currencyTotals() };
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
