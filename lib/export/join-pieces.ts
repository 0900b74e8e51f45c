/**
 * Stage 3 of a run whose windows were assembled and rendered where they were fetched (see
 * `window-piece.ts`): the pieces joined, in window order, into the bytes the run's own assembly
 * would have written. The snapshot is the header's gzip member followed by each window's member
 * (the assembly writes one member per window), hashed as it is joined. Each CSV report is one
 * header followed by every window's rows: only when every window with rows fixed the same columns
 * (same spec, same header bytes), which are then the run's (a union of equal sets of fields and
 * currencies is that set); otherwise every report is rendered from the joined snapshot. The
 * workbook's sheets read every window's rows from their JSON lines, the first sheet with the
 * first window's spec (the run's live sheet has it), the others with every window's widths.
 */
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import type { TableSource, TableSpec } from '../domain/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';
import { hashedFile } from '../storage/index.ts';
import { type AssembledExport, snapshotHeader } from './assemble.ts';
import type { FetchedShard } from './fetch/index.ts';
import type { ExportPlan, ExportRequest } from './plan/index.ts';
import {
  type CurrencyTotal,
  type LiveFile,
  type LiveOutputs,
  mergeTotals,
  namedTotals,
  observeSnapshot,
  type ReportModel,
} from './report/index.ts';
import { type FileSlice, readRowLines } from './row-lines.ts';
import { prependHeader, type SnapshotHeader } from './snapshot/index.ts';
import type { WindowPiece } from './window-piece.ts';

/** What a piece says of itself: the first line of a stored piece, its files' bytes after it. */
export interface PieceDescription {
  /** The window's index in the plan. */
  window: number;
  /** The window's shard as fetched (what the snapshot's header lists). */
  shard: Omit<FetchedShard, 'shard' | 'partFile' | 'partStore' | 'droppedBefore'>;
  /** The shard's answers came from the project's simulator. */
  demo: boolean;
  assembled: WindowPiece['assembled'];
  /** Bytes of the window's gzip member, first after the description. */
  memberBytes: number;
  /** Each report's CSV file (`bytes`, 0 for none) then its rows as lines (`lineBytes`), after the member, in this order. */
  tables: {
    name: string;
    spec: TableSpec;
    wholeSpec: TableSpec;
    bytes: number;
    headerBytes: number;
    lineBytes: number;
    rows: number;
  }[];
  totals: [string, CurrencyTotal][];
}

/** A piece as the finish has it: its description, and the file holding its bytes from `offset` on. */
export interface StoredPiece {
  description: PieceDescription;
  file: string;
  offset: number;
}

/** The description of `piece` of `part`, and its files in the order their bytes follow it. */
export async function describePiece(
  piece: WindowPiece,
  part: FetchedShard,
  demo: boolean,
): Promise<{ description: PieceDescription; files: string[] }> {
  // Where the shard's lines are is its task's own (a part store is held in that process).
  const { shard, partFile: _file, partStore: _store, droppedBefore: _dropped, ...fetched } = part;
  const size = async (file: string) => {
    const handle = await open(file, 'r');
    try {
      return (await handle.stat()).size;
    } finally {
      await handle.close();
    }
  };
  return {
    description: {
      window: shard.window.index,
      shard: fetched,
      demo,
      assembled: piece.assembled,
      memberBytes: await size(piece.memberFile),
      tables: await Promise.all(
        piece.tables.map(async (table) => ({
          name: table.name,
          spec: table.spec,
          wholeSpec: table.wholeSpec,
          bytes: table.csv === null ? 0 : await size(table.csv.file),
          headerBytes: table.csv?.headerBytes ?? 0,
          lineBytes: table.lines === null ? 0 : await size(table.lines),
          rows: table.rows,
        })),
      ),
      totals: [...piece.totals],
    },
    files: [
      piece.memberFile,
      ...piece.tables.flatMap((table) => [table.csv?.file, table.lines ?? undefined]),
    ].filter((file): file is string => file !== undefined),
  };
}

/** What {@link joinWindowPieces} uses. */
export interface JoinDeps {
  fields: TransactionFieldMap;
  apiBase: string;
  startedAt: Date;
  /** The run's scratch folder. */
  workDir: string;
  /** The plan's answers were demo data (the pieces say it of their own). */
  demo: boolean;
  onProgress?: (progress: { stage: 'fetched'; transactions: number }) => void;
}

/**
 * The run assembled from its windows' pieces (one per window, in plan order), as `assembleExport`
 * assembles it from the parts. When the pieces' CSV columns differ (or no window has rows), the
 * snapshot is joined all the same and the reports are rendered from it.
 */
export async function joinWindowPieces(
  request: ExportRequest,
  plan: ExportPlan,
  pieces: readonly StoredPiece[],
  deps: JoinDeps,
): Promise<AssembledExport> {
  const tables = await agreedTables(pieces);
  const demo = deps.demo || pieces.some((piece) => piece.description.demo);
  const header = snapshotHeader(
    request,
    plan,
    pieces.map((piece) => ({
      ...piece.description.shard,
      shard: plan.shards.find(
        (shard) => shard.window.index === piece.description.window,
      ) as FetchedShard['shard'],
      partFile: '',
    })),
    { ...deps, demo },
  );
  const snapshotFile = join(deps.workDir, 'snapshot.ndjson.gz');
  const bodyFile = `${snapshotFile}.body`;
  await joinSlices(
    createWriteStream(bodyFile),
    pieces.map((piece) => ({ file: piece.file, start: piece.offset, bytes: piece.description.memberBytes })),
  );
  const snapshotDigest = await prependHeader(header, bodyFile, snapshotFile);
  const transactions = sum(pieces, (piece) => piece.description.assembled.transactions);
  deps.onProgress?.({ stage: 'fetched', transactions });
  const joined = {
    snapshotFile,
    header,
    snapshotDigest,
    counts: {
      transactions,
      duplicatesDropped: sum(pieces, (piece) => piece.description.assembled.duplicates),
      conflictingCopies: 0,
      outsideWindowDropped: sum(pieces, (piece) => piece.description.assembled.outsideWindow),
      keptFromOtherWindow: 0,
      changes: 0,
    },
  };
  if (tables === null) {
    // The windows fixed different columns (or none has rows): every report is rendered from the
    // joined snapshot, as the CLI renders its reports again from its snapshot when a later window
    // brings a column.
    return {
      ...joined,
      model: await observeSnapshot(snapshotFile, header, request),
      live: joinedLive(new Map()),
    };
  }
  const files = request.formats.includes('csv')
    ? await joinCsvFiles(tables, pieces, deps.workDir)
    : new Map();
  return {
    ...joined,
    model: joinedModel(
      request,
      header,
      joinedTables(tables, pieces, request.formats.includes('xlsx')),
      mergeTotals(pieces.map((piece) => new Map(piece.description.totals))),
    ),
    live: joinedLive(files),
  };
}

/** Each CSV report joined: the first window's header, then every window's rows. */
async function joinCsvFiles(
  tables: AgreedTables,
  pieces: readonly StoredPiece[],
  workDir: string,
): Promise<Map<string, LiveFile>> {
  const files = new Map<string, LiveFile>();
  for (const [index, table] of tables.entries()) {
    const file = join(workDir, `joined-${table.name}.csv`);
    const { stream, done } = hashedFile(file);
    const first = tables.from;
    const slices = [{ file: first.file, start: tableStart(first, index), bytes: table.headerBytes }];
    let rows = 0;
    for (const piece of pieces) {
      const own = piece.description.tables[index];
      if (own === undefined) continue;
      rows += own.rows;
      const start = tableStart(piece, index) + own.headerBytes;
      slices.push({ file: piece.file, start, bytes: own.bytes - own.headerBytes });
    }
    await joinSlices(stream, slices);
    files.set(table.name, { file, rows, digest: await done });
  }
  return files;
}

/**
 * The joined run's tables: specs as the run's workbook has them (the first table's as its first
 * window fixed it, the others sized by every window), and, when `lines`, rows read from every
 * window's lines.
 */
function joinedTables(
  tables: AgreedTables,
  pieces: readonly StoredPiece[],
  lines: boolean,
): { spec: TableSpec; slices: FileSlice[] | null }[] {
  return tables.map((table, index) => ({
    spec:
      index === 0
        ? table.spec
        : widest(pieces.flatMap((piece) => piece.description.tables[index]?.wholeSpec ?? [])),
    slices: !lines
      ? null
      : pieces.flatMap((piece) => {
          const own = piece.description.tables[index];
          if (own === undefined) return [];
          return [{ file: piece.file, start: tableStart(piece, index) + own.bytes, bytes: own.lineBytes }];
        }),
  }));
}

/** The spec of agreeing `specs` (at least one) with each column as wide as its widest. */
function widest(specs: readonly TableSpec[]): TableSpec {
  const [first] = specs as [TableSpec];
  return {
    ...first,
    columns: first.columns.map((column, index) => {
      const widths = specs.flatMap((spec) => spec.columns[index]?.width ?? []);
      return widths.length === 0 ? column : { ...column, width: Math.max(...widths) };
    }),
  };
}

type AgreedTables = PieceDescription['tables'] & { from: StoredPiece };

/**
 * The tables every window with rows agrees on (same names, same specs but for the sheet widths,
 * same header bytes), with the piece their header is taken from; null when they differ.
 */
async function agreedTables(pieces: readonly StoredPiece[]): Promise<AgreedTables | null> {
  const withRows = pieces.filter((piece) => piece.description.tables.length > 0);
  const first = withRows[0];
  if (first === undefined) return null;
  const ours = first.description.tables;
  const headers = await Promise.all(ours.map((_, index) => headerOf(first, index)));
  for (const piece of withRows.slice(1)) {
    const theirs = piece.description.tables;
    if (theirs.length !== ours.length) return null;
    for (const [index, table] of theirs.entries()) {
      const mine = ours[index] as PieceDescription['tables'][number];
      if (table.name !== mine.name || table.headerBytes !== mine.headerBytes) return null;
      if (specText(table.spec) !== specText(mine.spec)) return null;
      if (!(await headerOf(piece, index)).equals(headers[index] as Buffer)) return null;
    }
  }
  return Object.assign([...ours], { from: first });
}

/** A spec as text, its sheet widths left out (a CSV has none; a window's widest cell is its own). */
function specText(spec: TableSpec): string {
  return JSON.stringify({ ...spec, columns: spec.columns.map(({ width: _width, ...column }) => column) });
}

/** Where table `index` of `piece` starts in its file. */
function tableStart(piece: StoredPiece, index: number): number {
  const { memberBytes, tables } = piece.description;
  return piece.offset + memberBytes + sum(tables.slice(0, index), (table) => table.bytes + table.lineBytes);
}

/** The header bytes of table `index` of `piece`. */
async function headerOf(piece: StoredPiece, index: number): Promise<Buffer> {
  const table = piece.description.tables[index] as PieceDescription['tables'][number];
  const handle = await open(piece.file, 'r');
  try {
    const bytes = Buffer.alloc(table.headerBytes);
    await handle.read(bytes, 0, table.headerBytes, tableStart(piece, index));
    return bytes;
  } finally {
    await handle.close();
  }
}

/** Writes the byte ranges `slices` into `out`, in order, and ends it. */
async function joinSlices(
  out: Writable,
  slices: readonly { file: string; start: number; bytes: number }[],
): Promise<void> {
  const failed = once(out, 'error').then(([error]) => Promise.reject(error));
  failed.catch(() => {});
  try {
    for (const slice of slices) {
      if (slice.bytes <= 0) continue;
      const end = slice.start + slice.bytes - 1;
      // Written by hand: a pipeline per slice into the one output would leave its listeners there.
      for await (const chunk of createReadStream(slice.file, { start: slice.start, end })) {
        if (!out.write(chunk)) await Promise.race([once(out, 'drain'), failed]);
      }
    }
    out.end();
    await Promise.race([once(out, 'finish'), failed]);
  } catch (error) {
    out.destroy();
    throw error;
  }
}

/**
 * The report model of a joined run: what the reports need besides their rows (specs, totals). Its
 * rows are the windows' lines (for the workbook), else in the joined CSV files, and read from the
 * snapshot should anything ask for them.
 */
function joinedModel(
  request: ExportRequest,
  header: SnapshotHeader,
  tables: readonly { spec: TableSpec; slices: readonly FileSlice[] | null }[],
  totals: Map<string, CurrencyTotal>,
): ReportModel {
  let observed: Promise<ReportModel> | undefined;
  const full = (snapshotFile: string) => {
    observed ??= observeSnapshot(snapshotFile, header, request);
    return observed;
  };
  return {
    lookAhead() {},
    observe: () => undefined,
    tables: (snapshotFile) =>
      tables.map(
        ({ spec, slices }): TableSource => ({
          spec,
          async *rows() {
            if (slices !== null) {
              yield* readRowLines(slices);
              return;
            }
            const model = await full(snapshotFile);
            const table = model.tables(snapshotFile).find((candidate) => candidate.spec.name === spec.name);
            if (table !== undefined) yield* table.rows();
          },
        }),
      ),
    totals: () => namedTotals(totals),
    currencyTotals: () => totals,
    counts: () => ({}),
    pendingMatches: () => [],
    journal: () => null,
    endLive: () => true,
  };
}

/** The joined CSV files as the live outputs that wrote them. */
function joinedLive(files: ReadonlyMap<string, LiveFile>): LiveOutputs {
  return {
    open() {},
    csv: async (name) => files.get(name) ?? null,
    workbook: async () => null,
    abort: async () => {},
  };
}

function sum<T>(list: readonly T[], value: (item: T) => number): number {
  return list.reduce((total, item) => total + value(item), 0);
}
