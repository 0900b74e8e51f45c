/**
 * The restatement of a closed period, computed from two snapshots alone (the closed one and the
 * corrected one): which transactions changed, and the effect on every total of the closed set.
 * The existing report builders run on both transaction sets (summaries, and with gains the gains
 * summary, holdings, income, disposals…); each table's rows are matched by their text cells and
 * every number cell subtracted.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Column, Row } from '../domain/index.ts';
import { compareDecimal, isZeroDecimal, subtractDecimal } from '../domain/index.ts';
import {
  createReportModel,
  parseExportRequest,
  readSnapshotHeader,
  readSnapshotRecords,
  transactionId,
} from '../export/index.ts';
import type { JournalEntry } from '../ledger/index.ts';
import type { RawTransaction } from '../pbs/index.ts';
import { adjustingEntries, dayAfterPeriod } from './adjusting.ts';
import type { CorrectedHeaderInfo } from './corrected.ts';
import { type FieldChange, fieldChanges, type TransactionChange } from './detect.ts';
import { CloseDataError } from './errors.ts';

/** One total of the closed set that the changes moved. */
export interface Effect {
  /** The table's file name (`summary_by_month`, `gains_summary`, …) and sheet title. */
  table: string;
  tableTitle: string;
  /** The row's text cells, e.g. `TOTAL · USD` or `2025 · … · TOTAL · short`. */
  row: string[];
  /** The column's key and header (`value`, `Value (USD)`). */
  column: string;
  header: string;
  before: string;
  after: string;
  /** after − before, exact. */
  change: string;
}

/** With the journal report: the adjusting entries and what their files need. */
export interface RestatementJournal {
  /** Their date, `YYYY-MM-DD`: the first day of the profile's first open period. */
  date: string;
  /** Empty when the corrected journal's balances are the closed one's. */
  entries: JournalEntry[];
  /** The closed set's journal formats (`csv`, `hledger`, …) and their settings blocks. */
  formats: string[];
  settings: Record<string, unknown>;
  currency: string;
  /**
   * The accounts (codes) and tokens declared before these entries: those the closed journal's
   * entries use (in first-use order), and those the adjusting files of the restatements this one
   * supersedes declared. The entries' own files declare only the others.
   */
  declared: { accounts: string[]; tokens: string[] };
}

/** A restatement: the changes and their effects, with the close they restate. */
export interface Restatement {
  info: CorrectedHeaderInfo;
  profile: string;
  period: string;
  timeZone: string;
  /** The closed set's CSV dialect (its files are written in it). */
  csv: { delimiter?: string; decimalSeparator?: '.' | ',' };
  changes: TransactionChange[];
  effects: Effect[];
  /** Present when the closed set has the journal report. */
  journal?: RestatementJournal;
  /** The snapshots are the simulator's: demo data, not a real portfolio (its files say so). */
  demo?: true;
}

/**
 * Tables that list transactions one by one: their changes are the changes themselves (the
 * journal's lines: the adjusting entries).
 */
const LISTINGS = new Set(['transactions', 'movements', 'changes', 'journal']);

/**
 * Builds the restatement of the closed snapshot `closedFile` by the corrected snapshot
 * `correctedFile` (see `corrected.ts`); `spoolDir` is a scratch folder for the gains reports.
 * When the corrected snapshot supersedes an earlier restatement, `supersededFile` is that one's
 * corrected snapshot (its SHA-256 is checked): the changes and effects are still stated from the
 * closed snapshot, the adjusting entries are the difference to the superseded one.
 */
export async function buildRestatement(
  closedFile: string,
  correctedFile: string,
  spoolDir: string,
  supersededFile?: string,
): Promise<Restatement> {
  const corrected = await readSnapshotHeader(correctedFile);
  const demo = corrected.demo === true || (await readSnapshotHeader(closedFile)).demo === true;
  const info = (corrected as unknown as { restatement?: CorrectedHeaderInfo }).restatement;
  if (info === undefined)
    throw new CloseDataError(correctedFile, 'is not a corrected snapshot (no restatement in its header)');
  await checkSuperseded(info, correctedFile, supersededFile);
  const request = parseExportRequest(corrected.request as Record<string, unknown>);
  // A scratch folder each: the journal spools its entries to a file of a fixed name.
  const before = await totalsOf(closedFile, await mkdtemp(join(spoolDir, 'closed-')));
  const after = await totalsOf(correctedFile, await mkdtemp(join(spoolDir, 'corrected-')));
  const changes = await changesBetween(closedFile, correctedFile, corrected.fields, info);
  const superseded =
    supersededFile === undefined
      ? null
      : {
          journal: (await totalsOf(supersededFile, await mkdtemp(join(spoolDir, 'superseded-')))).journal,
          changes: await changesBetween(supersededFile, correctedFile, corrected.fields, info),
        };
  const journal = journalOf(request, info, changes, before.journal, after.journal, superseded);
  return {
    info,
    profile: request.profile,
    period: info.close.period,
    timeZone: request.timeZone,
    csv: request.csv,
    changes,
    effects: effectsOf(before.tables, after.tables),
    ...(journal === undefined ? {} : { journal }),
    ...(demo ? { demo: true as const } : {}),
  };
}

/**
 * The adjusting entries from the journals of the snapshots (none without the journal report): to
 * the corrected journal from the superseded restatement's corrected journal (what the
 * restatements up to it booked), or from the closed journal for the first restatement.
 */
function journalOf(
  request: ReturnType<typeof parseExportRequest>,
  info: CorrectedHeaderInfo,
  changes: readonly TransactionChange[],
  closed: BuiltJournal | null,
  corrected: BuiltJournal | null,
  superseded: { journal: BuiltJournal | null; changes: TransactionChange[] } | null,
): RestatementJournal | undefined {
  if (request.journal === undefined || closed === null || corrected === null) return undefined;
  const booked = superseded?.journal ?? closed;
  const date = info.adjustingDate ?? dayAfterPeriod(info.close.period);
  const since =
    info.supersedes === undefined ? '' : `, beyond the restatement checked at ${info.supersedes.checkedAt}`;
  const entries = adjustingEntries(booked.entries, corrected.entries, {
    date,
    id: `restatement:${info.close.period}:${info.checkedAt}`,
    description: `Adjusting entry: ${info.close.period} as corrected after its close of ${info.close.at}${since}`,
    txIds: (superseded?.changes ?? changes).map((change) => change.id),
  });
  const declared = [usedBy(closed.entries)];
  if (info.supersedes?.declared !== undefined) declared.push(info.supersedes.declared);
  else if (superseded?.journal) declared.push(usedBy(superseded.journal.entries));
  return {
    date,
    entries,
    formats: [...request.journal.formats],
    settings: { ...request.journal.settings },
    currency: corrected.currency,
    declared: {
      accounts: [...new Set(declared.flatMap((d) => d.accounts))],
      tokens: [...new Set(declared.flatMap((d) => d.tokens))],
    },
  };
}

/** The accounts (codes) and tokens `entries` use, in first-use order. */
export function usedBy(entries: readonly JournalEntry[]): { accounts: string[]; tokens: string[] } {
  return {
    accounts: [...new Set(entries.flatMap((e) => e.postings.map((p) => p.account.code)))],
    tokens: [...new Set(entries.flatMap((e) => e.postings.flatMap((p) => p.token ?? [])))],
  };
}

/**
 * Checks that `supersededFile` is given exactly when the corrected snapshot supersedes a
 * restatement, and is that restatement's corrected snapshot (its SHA-256).
 */
async function checkSuperseded(
  info: CorrectedHeaderInfo,
  correctedFile: string,
  supersededFile: string | undefined,
): Promise<void> {
  const superseded = info.supersedes;
  if (superseded === undefined) {
    if (supersededFile !== undefined)
      throw new CloseDataError(
        supersededFile,
        `was given as the superseded restatement's corrected snapshot, but ${correctedFile} supersedes none (leave it out)`,
      );
    return;
  }
  if (supersededFile === undefined) {
    throw new CloseDataError(
      correctedFile,
      `supersedes the restatement ${superseded.prefix}: its corrected snapshot ${superseded.correctedSnapshot.name} is needed too (restate --superseded FILE)`,
    );
  }
  const sha256 = createHash('sha256')
    .update(await readFile(supersededFile))
    .digest('hex');
  if (sha256 !== superseded.correctedSnapshot.sha256) {
    throw new CloseDataError(
      supersededFile,
      `is not the corrected snapshot of ${superseded.prefix} (SHA-256 ${superseded.correctedSnapshot.sha256}), which ${correctedFile} supersedes`,
    );
  }
}

/** The changes between two snapshots: ids only in one, and records that differ. */
async function changesBetween(
  closedFile: string,
  correctedFile: string,
  fields: Parameters<typeof transactionId>[1],
  info: CorrectedHeaderInfo,
): Promise<TransactionChange[]> {
  const closed = await recordsById(closedFile, fields);
  const now = await recordsById(correctedFile, fields);
  const changes: TransactionChange[] = [];
  const change = (
    kind: TransactionChange['kind'],
    id: string,
    before: RawTransaction | null,
    after: RawTransaction | null,
    list: FieldChange[],
  ) => changes.push({ kind, id, before, after, lastModified: info.lastModified[id] ?? '', fields: list });
  for (const [id, after] of now) {
    const before = closed.get(id);
    if (before === undefined) change('added', id, null, after, []);
    else {
      const differs = fieldChanges(before, after).filter(
        (f) => f.field !== 'lastModifiedDate' && f.field !== fields.id,
      );
      if (differs.length > 0) change('modified', id, before, after, differs);
    }
  }
  for (const [id, before] of closed) if (!now.has(id)) change('deleted', id, before, null, []);
  const order = [...now.keys(), ...closed.keys()];
  return changes.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
}

async function recordsById(
  file: string,
  fields: Parameters<typeof transactionId>[1],
): Promise<Map<string, RawTransaction>> {
  const out = new Map<string, RawTransaction>();
  for await (const record of readSnapshotRecords(file)) {
    if (record.kind === 'transaction') out.set(transactionId(record.data, fields), record.data);
  }
  return out;
}

interface TableRows {
  title: string;
  columns: readonly Column[];
  rows: Row[];
}

/** A journal built on a snapshot: its entries and currency. */
interface BuiltJournal {
  entries: JournalEntry[];
  currency: string;
}

/**
 * The report builders of the snapshot's own request, run on its records: every total table, by
 * name, and with the journal report its entries.
 */
async function totalsOf(
  file: string,
  spoolDir: string,
): Promise<{ tables: Map<string, TableRows>; journal: BuiltJournal | null }> {
  const header = await readSnapshotHeader(file);
  const request = parseExportRequest(header.request as Record<string, unknown>);
  // The same instant for both snapshots: the closed set's "now" (HMRC's 30 days see the same days).
  const model = createReportModel(header.fields, request, {
    spoolDir,
    now: () => new Date(header.createdAt),
  });
  for await (const record of readSnapshotRecords(file)) await model.observe(record);
  const tables = new Map<string, TableRows>();
  for (const table of model.tables(file)) {
    if (LISTINGS.has(table.spec.name) || table.spec.csvOnly === true) continue;
    const rows: Row[] = [];
    for await (const row of table.rows()) rows.push(row);
    tables.set(table.spec.name, { title: table.spec.title, columns: table.spec.columns, rows });
  }
  const feed = model.journal();
  if (feed === null) return { tables, journal: null };
  const entries: JournalEntry[] = [];
  for await (const entry of feed.entries()) entries.push(entry);
  return { tables, journal: { entries, currency: feed.manifest().currency } };
}

const isNumber = (column: Column) => column.kind === 'decimal' || column.kind === 'integer';

/** Rows keyed by their text cells (a repeated key numbered), with their number cells by column key. */
function keyed(table: TableRows): Map<string, { row: string[]; numbers: Map<string, string> }> {
  const out = new Map<string, { row: string[]; numbers: Map<string, string> }>();
  const seen = new Map<string, number>();
  for (const row of table.rows) {
    const text = table.columns.flatMap((column, k) => (isNumber(column) ? [] : [row[k] ?? '']));
    const base = JSON.stringify(text);
    const n = (seen.get(base) ?? 0) + 1;
    seen.set(base, n);
    const numbers = new Map<string, string>();
    table.columns.forEach((column, k) => {
      const cell = row[k];
      if (isNumber(column) && cell !== null && cell !== undefined && cell !== '')
        numbers.set(column.key, cell);
    });
    out.set(`${base}#${n}`, { row: text, numbers });
  }
  return out;
}

/** Every number cell that differs between the two runs of the builders (a row missing on one side counts as 0). */
function effectsOf(before: Map<string, TableRows>, after: Map<string, TableRows>): Effect[] {
  const effects: Effect[] = [];
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const left = before.get(name);
    const right = after.get(name);
    const table = (right ?? left) as TableRows;
    const l = left ? keyed(left) : new Map();
    const r = right ? keyed(right) : new Map();
    for (const key of new Set([...l.keys(), ...r.keys()])) {
      const was = l.get(key);
      const now = r.get(key);
      for (const column of table.columns.filter(isNumber)) {
        const b = was?.numbers.get(column.key) ?? '0';
        const a = now?.numbers.get(column.key) ?? '0';
        if (compareDecimal(a, b) === 0) continue;
        const change = padded(subtractDecimal(a, b), Math.max(decimals(a), decimals(b)));
        if (isZeroDecimal(change)) continue;
        const row = (now ?? was)?.row ?? [];
        effects.push({
          table: name,
          tableTitle: table.title,
          row,
          column: column.key,
          header: column.header,
          before: b,
          after: a,
          change,
        });
      }
    }
  }
  return effects;
}

/** Digits after the point of a plain decimal. */
function decimals(value: string): number {
  const point = value.indexOf('.');
  return point === -1 ? 0 : value.length - point - 1;
}

/** `value` with at least `places` digits after the point (`-301850`, 2 → `-301850.00`), as its operands show. */
function padded(value: string, places: number): string {
  const missing = places - decimals(value);
  if (missing <= 0) return value;
  return `${value}${value.includes('.') ? '' : '.'}${'0'.repeat(missing)}`;
}
