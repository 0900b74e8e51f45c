import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  type AdjustmentsReference,
  adjustmentsReference,
  type LoadedAdjustments,
} from '../../adjustments/index.ts';
import type { TableSource } from '../../domain/index.ts';
import { demoRatesNote, type RateTable } from '../../fx/index.ts';
import { ledgerFileName } from '../../ledger/index.ts';
import { type Digest, HashingStream, hashedFile } from '../../storage/index.ts';
import { openPeriodCutOff, periodLabel, periodRange } from '../plan/period.ts';
import { type ExportRequest, parseExportRequest } from '../plan/request.ts';
import type { SnapshotHeader } from '../snapshot/snapshot.ts';
import { conversionWords } from './fx-step.ts';
import { FEE_TREATMENT, taxYearZone } from './gains-feed.ts';
import { type Headline, headlineFigures } from './headline.ts';
import type { JournalManifest } from './journal-feed.ts';
import type { LiveOutputs } from './live-outputs.ts';
import { type MoneyRounding, moneyRounding } from './money-rounding.ts';
import {
  DEMO_BANNER,
  datesShownNote,
  gainsPolicyPairs,
  POOLS,
  partialNote,
  README_FILE,
  type ReadmeInput,
  readmeTable,
  readmeText,
} from './readme.ts';
import { warningsByKind } from './readme-words.ts';
import { observeSnapshot, type ReportModel } from './report-model.ts';
import { countWords, keyWords, totalWords, windowWords } from './words.ts';
import { writeCsv } from './writers/csv.ts';
import {
  type ReconciliationResult,
  TAX_PACK_SUFFIX,
  type TaxPackFacts,
  writeTaxPack,
} from './writers/pdf-pack.ts';
import { writeXlsx, type XlsxOptions } from './writers/xlsx.ts';

/** What `renderReports` renders: a snapshot, and what the run learnt while assembling it. */
export interface RenderInput {
  snapshotFile: string;
  header: SnapshotHeader;
  runId: string;
  now: () => Date;
  generator: { name: string; version: string };
  /** Counts gathered before rendering (fetch and assembly), recorded in the manifest. */
  counts: Record<string, number>;
  /**
   * Size and SHA-256 of the snapshot, when taken while it was written (see `assembleExport`);
   * else the About sheet reads the snapshot back.
   */
  snapshotDigest?: Digest;
  /** Scratch folder (the caller's, removed by it) that receives the rendered files. */
  workDir: string;
  /** Formats to write instead of the request's (render from a snapshot). */
  formats?: readonly ('csv' | 'xlsx')[];
  /** A model that has already observed every record (during assembly); else one pass is made. */
  model?: ReportModel;
  /** Report files the model's live tables were written to while assembling (see `LiveOutputs`). */
  live?: LiveOutputs;
  /** Stops rendering (Ctrl-C, SIGTERM): the file being written is destroyed and the promise rejects. */
  signal?: AbortSignal;
  /** The rates files of `gains.rates`, read again for a render from a snapshot (without `model`). */
  rates?: RateTable;
  /**
   * The zone the reports' dates are shown in (`render --time-zone`), when not the request's: the
   * period, the summary's months and the gains computation stay those of the request's zone.
   */
  displayTimeZone?: string;
  /**
   * The preparer's adjustments the gains figures use (see lib/adjustments); the manifest records
   * their profile, version and SHA-256. The snapshot is not changed by them.
   */
  adjustments?: LoadedAdjustments;
  /**
   * Whether to write the PDF tax pack (`<base>_tax_pack.pdf`) when the gains reports go into a
   * workbook (default true, for every caller: the finish function ships its fonts).
   */
  taxPack?: boolean;
  /**
   * Tables made outside the report model (the reconciliation, lib/export/reconcile), rendered after the
   * model's: CSV files and sheets like the others. Absent: none.
   */
  extraTables?: readonly TableSource[];
  /** First-screen notes of the Read me from outside the reports (the reconciliation's result). */
  attention?: readonly string[];
  /**
   * The reconciliation's result (the manifest's status, note and period end, and what to do about
   * a difference), for the tax pack's Reconciliation section. Absent: the pack has none.
   */
  reconciliation?: ReconciliationResult;
}

/** One rendered file, complete in the scratch folder (or the snapshot itself), ready to publish. */
export interface RenderedFile {
  /** Name in the published set, e.g. `demo_2025_transactions.csv`. */
  name: string;
  /** Where its bytes are. */
  file: string;
  contentType: string;
  /** Data rows written, for report files (every sheet's, for a workbook). */
  rows?: number;
  /** Size and SHA-256, when taken while the file was written (else the About sheet reads it back). */
  digest?: Digest;
}

/**
 * What a run's manifest says besides its format, completion time and files: what was asked, of
 * whom, what was fetched and what the reports add up to. Holds no credential of any kind.
 */
export interface ReportSetDescription {
  generator: { name: string; version: string };
  runId: string;
  createdAt: string;
  request: unknown;
  period: {
    label: string;
    start: string;
    end: string;
    timeZone: string;
    /** The zone the reports' dates are shown in, when not `timeZone` (a render with `--time-zone`). */
    datesShownIn?: string;
    /**
     * Present when the period was not over when the export started: the reports hold only the
     * transactions the service had by `cutOff` (the run's start), not the whole period.
     */
    partial?: { cutOff: string; note: string };
  };
  apiBase: string;
  /** On the simulator's data: `true`, with {@link DEMO_BANNER} as `notice`. Absent for a real service. */
  demo?: true;
  notice?: typeof DEMO_BANNER;
  windows: SnapshotHeader['windows'];
  shards: SnapshotHeader['shards'];
  counts: Record<string, number>;
  /** Report totals as exact decimal strings, e.g. `totalValue`. */
  totals?: Record<string, string>;
  /**
   * The adjustments the gains figures use: their profile, version and the SHA-256 of the exact
   * bytes of that version's file (`render --adjustments FILE` refuses another file).
   */
  adjustments?: AdjustmentsReference;
  /** Settings of the gains reports, when they were asked for. */
  gains?: {
    method: string;
    pooling: string;
    taxYearStart: string;
    longTermYears: number;
    feeTreatment: string;
    timeZone: string;
    /** How the gains reports' money is rounded, and where the exact figures are. */
    money?: MoneyRounding;
  };
  /** The journal report: its totals and the results of its tie-out with the reports. */
  journal?: JournalManifest;
  /** With the gains report: each tax year's net gain and income, and the warnings still open. */
  headline?: Headline;
}

/** The files of a run, in the order they are published, and their description. */
export interface RenderedReports {
  /** The snapshot, then the CSV files and `README.txt`, then the workbook. */
  files: RenderedFile[];
  description: ReportSetDescription;
}

/** A file the About sheet lists: one published before the workbook. */
interface ListedFile extends Digest {
  name: string;
}

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  pdf: 'application/pdf',
  gzip: 'application/gzip',
} as const;

/** Name (`spec.name`) of the Read me table: the workbook's first sheet. */
export const README_TABLE = 'readme';

/**
 * How a run's workbook is written: every printed page names the profile, the period and its zone
 * (and, on the simulator's data, the demo banner), and the Read me sheet is listed first.
 */
export function workbookOptions(request: ExportRequest, demo: boolean, created: Date): XlsxOptions {
  return {
    // The run's instant, not the clock: a rebuild from the snapshot writes the same bytes.
    created,
    print: {
      center: `Profile ${request.profile} · ${periodLabel(request.period)} (${request.timeZone})`,
      ...(demo ? { right: DEMO_BANNER } : {}),
    },
    firstSheet: README_TABLE,
  };
}

/**
 * Renders the requested reports from a snapshot into files of the scratch folder: the CSV files
 * and their `README.txt`, then the workbook (whose About sheet lists the files before it, with
 * their sizes and SHA-256), and describes the run for its manifest. Files the live outputs wrote
 * while assembling are taken as they are. Publishes nothing: see `publishReports`. On failure the
 * live writers are stopped before it rejects.
 */
export async function renderReports(input: RenderInput): Promise<RenderedReports> {
  try {
    return await renderAll(input);
  } catch (error) {
    await input.live?.abort(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
}

async function renderAll(input: RenderInput): Promise<RenderedReports> {
  input.signal?.throwIfAborted();
  const request: ExportRequest = parseExportRequest(input.header.request);
  const formats = input.formats ?? request.formats;
  const baseName = `${request.profile}_${periodLabel(request.period)}`;
  const shownIn =
    input.displayTimeZone !== undefined && input.displayTimeZone !== request.timeZone
      ? input.displayTimeZone
      : undefined;
  const model =
    input.model ??
    (await observeSnapshot(
      input.snapshotFile,
      input.header,
      request,
      input.rates,
      shownIn,
      input.adjustments,
    ));
  const tables = [...model.tables(input.snapshotFile), ...(input.extraTables ?? [])];
  // Companions for machines (the exact figures of rounded tables) are files, not sheets.
  const sheets = tables.filter((table) => table.spec.csvOnly !== true);
  const demo = input.header.demo === true;
  // How the gains reports' money is rounded: in the manifest and, in words, in the Read me.
  const money = moneyRounding(
    tables.map((table) => table.spec),
    formats.includes('csv') ? (name) => `${baseName}_${name}.csv` : null,
  );
  const readme: ReadmeInput = {
    request: { ...request, formats: [...formats] },
    runId: input.runId,
    generator: input.generator,
    createdAt: input.header.createdAt,
    apiBase: input.header.apiBase,
    demo,
    windows: input.header.windows.length,
    shards: input.header.shards.length,
    tables: tables.map((table) => table.spec),
    baseName,
    money,
    pendingMatches: model.pendingMatches(),
    ...(shownIn === undefined ? {} : { datesShownIn: shownIn }),
    warnings: await warningsByKind(tables),
    taxPack: formats.includes('xlsx') && request.gains !== undefined && input.taxPack !== false,
    ...(input.attention === undefined ? {} : { attention: input.attention }),
  };
  const files: RenderedFile[] = [
    {
      name: `${baseName}_snapshot.ndjson.gz`,
      file: input.snapshotFile,
      contentType: CONTENT_TYPES.gzip,
      ...(input.snapshotDigest !== undefined ? { digest: input.snapshotDigest } : {}),
    },
  ];
  /** Writes one file into the scratch folder and lists it. */
  const render = async (
    name: string,
    contentType: string,
    write: (out: Writable) => Promise<number | undefined>,
  ): Promise<void> => {
    input.signal?.throwIfAborted();
    const file = join(input.workDir, `rendered-${files.length}`);
    // Hashed on the way to the file, so the About sheet need not read it back.
    const { stream: out, done } = hashedFile(file);
    const stop = () => out.destroy(input.signal?.reason);
    input.signal?.addEventListener('abort', stop, { once: true });
    try {
      const rows = await write(out);
      if (!out.writableEnded) out.end();
      const digest = await done;
      input.signal?.throwIfAborted();
      files.push({ name, file, contentType, ...(rows === undefined ? {} : { rows }), digest });
    } catch (error) {
      out.destroy();
      // Whatever failed once the signal fired (a destroyed stream), the run was stopped.
      input.signal?.throwIfAborted();
      throw error;
    } finally {
      input.signal?.removeEventListener('abort', stop);
    }
  };

  if (formats.includes('csv')) {
    for (const table of tables) {
      const name = `${baseName}_${table.spec.name}.csv`;
      const written = (await input.live?.csv(table.spec.name)) ?? null;
      if (written !== null) {
        files.push({ name, contentType: CONTENT_TYPES.csv, ...written });
        continue;
      }
      await render(name, CONTENT_TYPES.csv, async (out) => {
        const { rows } = await writeCsv(table, out, {
          delimiter: request.csv.delimiter,
          decimalSeparator: request.csv.decimalSeparator,
        });
        return rows;
      });
    }
    await render(README_FILE, CONTENT_TYPES.text, async (out) => {
      out.end(readmeText(readme));
      return undefined;
    });
  }
  // The journal's own formats (Beancount, hledger, …): files beside the tables, whatever the formats.
  const journal = model.journal();
  for (const file of (await journal?.outputs()) ?? []) {
    await render(ledgerFileName(`${baseName}_`, file), file.contentType, async (out) => {
      if ('body' in file) {
        out.end(file.body);
        return undefined;
      }
      // Streamed from the spool: waits for the file when it is behind.
      for await (const chunk of file.chunks) if (!out.write(chunk)) await once(out, 'drain');
      out.end();
      return undefined;
    });
  }
  const range = periodRange(request.period, request.timeZone);
  const openWarnings = [...(readme.warnings?.values() ?? [])].reduce((sum, count) => sum + count, 0);
  const headline = await headlineFigures(tables, openWarnings);
  const gainsNotes = {
    feeTreatment: FEE_TREATMENT,
    timeZone: request.timeZone,
    ...(money === null ? {} : { money }),
  };
  const description: ReportSetDescription = {
    generator: input.generator,
    runId: input.runId,
    createdAt: input.header.createdAt,
    request,
    period: {
      label: periodLabel(request.period),
      start: range.start.toUTC().toISO() ?? '',
      end: range.end.toUTC().toISO() ?? '',
      timeZone: request.timeZone,
      ...(shownIn === undefined ? {} : { datesShownIn: shownIn }),
      ...partialPeriod(request, input.header.createdAt),
    },
    apiBase: input.header.apiBase,
    ...(demo ? { demo: true as const, notice: DEMO_BANNER as typeof DEMO_BANNER } : {}),
    windows: input.header.windows,
    shards: input.header.shards,
    counts: { ...input.counts, ...model.counts() },
    totals: model.totals(),
    ...(request.gains !== undefined ? { gains: { ...request.gains, ...gainsNotes } } : {}),
    ...(journal === null ? {} : { journal: journal.manifest() }),
    ...(headline === undefined ? {} : { headline }),
    ...(input.adjustments === undefined || request.gains === undefined
      ? {}
      : { adjustments: adjustmentsReference(input.adjustments) }),
  };
  if (formats.includes('xlsx') && request.gains !== undefined && input.taxPack !== false) {
    // Before the workbook, so its About sheet lists the pack with its SHA-256 like the CSV files.
    const facts = taxPackFacts(description, (await listedFile(files[0] as RenderedFile)).sha256);
    await render(`${baseName}${TAX_PACK_SUFFIX}`, CONTENT_TYPES.pdf, async (out) => {
      // Its note says the period end as a day in the period's zone already (lib/export/plan, instantWords).
      const reconciliation =
        input.reconciliation === undefined ? {} : { reconciliation: input.reconciliation };
      await writeTaxPack({ facts, tables, ...reconciliation }, out);
      return undefined;
    });
  }
  if (formats.includes('xlsx')) {
    const name = `${baseName}.xlsx`;
    const listed = await Promise.all(files.map(listedFile));
    const about = () => aboutTable({ ...description, completedAt: input.now().toISOString(), files: listed });
    // The live workbook's first sheet is the first table: it goes on with the others and About.
    const written =
      (await input.live?.workbook(async function* rest() {
        yield* sheets.slice(1);
        yield about();
        yield readmeTable(readme);
      })) ?? null;
    if (written !== null) {
      files.push({ name, file: written.file, contentType: CONTENT_TYPES.xlsx, rows: written.rows });
    } else {
      await render(name, CONTENT_TYPES.xlsx, async (out) => {
        const options = workbookOptions(request, demo, new Date(input.header.createdAt));
        const result = await writeXlsx([...sheets, about(), readmeTable(readme)], out, options);
        return result.sheets.reduce((sum, sheet) => sum + sheet.rows, 0);
      });
    }
  }
  return { files, description };
}

/** What the tax pack's explainer page states, from the run's description. */
function taxPackFacts(description: ReportSetDescription, snapshotSha256: string): TaxPackFacts {
  const request = description.request as ExportRequest;
  const gains = request.gains;
  const { period } = description;
  return {
    profile: request.profile,
    periodLabel: period.label,
    periodWords: `${periodDays(request)}${period.partial === undefined ? '' : `; PARTIAL PERIOD: ${period.partial.note}`}`,
    taxRules: gains?.taxRules ?? 'generic',
    method: gains?.method ?? '',
    pooling: POOLS[gains?.pooling ?? ''] ?? gains?.pooling ?? '',
    currency: gains?.currency ?? null,
    conversion:
      gains?.rates === undefined
        ? `none: the figures are the data's own values${gains?.currency ? ` in ${gains.currency}` : ''}, not converted`
        : conversionWords(gains.rates, gains.currency ?? '', gains.taxRules),
    dataSource: description.demo
      ? `${description.apiBase} (the simulator built into pbs-export)`
      : description.apiBase,
    demoBanner: description.demo ? DEMO_BANNER : null,
    demoRates: demoRatesNote(gains?.rates?.files),
    runId: description.runId,
    snapshotSha256,
    generator: `${description.generator.name} ${description.generator.version}`,
    createdAt: description.createdAt,
  };
}

/**
 * The period as the days it covers, first and last, in its zone: `2024-01-01 to 2024-12-31
 * (days in Europe/Berlin)`; one day is `2024-10-01 (a day in UTC)`.
 */
export function periodDays(request: Pick<ExportRequest, 'period' | 'timeZone'>): string {
  const range = periodRange(request.period, request.timeZone);
  const first = range.start.setZone(request.timeZone).toISODate();
  const last = range.end.setZone(request.timeZone).minus({ days: 1 }).toISODate();
  return first === last
    ? `${first} (a day in ${request.timeZone})`
    : `${first} to ${last} (days in ${request.timeZone})`;
}

/**
 * Size and SHA-256 of a rendered file (what the sink will store): as taken while it was written,
 * else read back (a snapshot rendered without its digest, e.g. from an existing file).
 */
async function listedFile(rendered: RenderedFile): Promise<ListedFile> {
  if (rendered.digest !== undefined) return { name: rendered.name, ...rendered.digest };
  const hashing = new HashingStream();
  hashing.resume();
  await pipeline(createReadStream(rendered.file), hashing);
  return { name: rendered.name, bytes: hashing.bytes, sha256: hashing.sha256 };
}

/** `{partial}` for a period not over at `createdAt` (see {@link openPeriodCutOff}), else nothing. */
function partialPeriod(
  request: ExportRequest,
  createdAt: string,
): { partial?: { cutOff: string; note: string } } {
  const cutOff = openPeriodCutOff(request.period, request.timeZone, new Date(createdAt));
  return cutOff === null ? {} : { partial: { cutOff: cutOff.toISOString(), note: partialNote(cutOff) } };
}

/** Most windows or shards the About sheet lists one by one; past it, their count (the manifest lists all). */
export const ABOUT_MAX_LISTED = 99;

/** The request as `Request: field` → value pairs: nested objects by dotted path, lists joined by `, `. */
function requestPairs(value: unknown, path = 'Request'): [string, string][] {
  if (value === null || value === undefined) return [];
  if (Array.isArray(value)) return [[path, value.map((item) => String(item)).join(', ')]];
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [[path, '(none)']];
    return entries.flatMap(([key, child]) =>
      requestPairs(child, path === 'Request' ? `Request: ${keyWords(key)}` : `${path}, ${keyWords(key)}`),
    );
  }
  return [[path, String(value)]];
}

/**
 * One pair per item of `list` when there are at most {@link ABOUT_MAX_LISTED}, else one pair
 * giving their count (hundreds of rows would bury the rest; the manifest keeps them all).
 */
function listedOrCounted<T>(
  label: string,
  list: readonly T[],
  pair: (item: T) => [string, string],
): [string, string][] {
  if (list.length <= ABOUT_MAX_LISTED) return list.map(pair);
  return [[label, `${list.length} (too many to list here: manifest.json lists every one)`]];
}

/** The About sheet: what was asked, of whom, how it was fetched, and the files published before it. */
function aboutTable(
  manifest: ReportSetDescription & { completedAt: string; files: ListedFile[] },
): TableSource {
  const request = manifest.request as ExportRequest;
  const { gains } = request;
  const pairs: [string, string][] = [
    ...(manifest.demo
      ? ([[DEMO_BANNER, 'made by the simulator built into pbs-export']] as [string, string][])
      : []),
    ['Generator', `${manifest.generator.name} ${manifest.generator.version}`],
    ['Run id', manifest.runId],
    ['Profile', String((manifest.request as ExportRequest).profile)],
    [
      'Period',
      `${manifest.period.label} (${manifest.period.start} to ${manifest.period.end}, end exclusive)`,
    ],
    ...(manifest.period.partial
      ? ([['PARTIAL PERIOD', manifest.period.partial.note]] as [string, string][])
      : []),
    ['Time zone', manifest.period.timeZone],
    ...(manifest.period.datesShownIn === undefined
      ? []
      : ([['Dates shown in', datesShownNote(manifest.period.datesShownIn, manifest.period.timeZone)]] as [
          string,
          string,
        ][])),
    ['API base', manifest.apiBase],
    ...requestPairs(manifest.request),
    ['Created at', manifest.createdAt],
    ...(manifest.gains
      ? ([
          ['Gains: lot method', manifest.gains.method],
          ['Gains: pools', POOLS[manifest.gains.pooling] ?? manifest.gains.pooling],
          ['Gains: fee treatment', manifest.gains.feeTreatment],
          ['Gains: tax year starts', `${manifest.gains.taxYearStart} (MM-DD, in ${taxYearZone(request)})`],
          ['Gains: long term', `held more than ${manifest.gains.longTermYears} year(s)`],
          ...(gains === undefined ? [] : gainsPolicyPairs(gains)).map(([topic, words]): [string, string] => [
            `Gains: ${topic}`,
            words,
          ]),
        ] as [string, string][])
      : []),
    ...Object.entries(manifest.counts).map(([key, value]): [string, string] => [
      countWords(key),
      String(value),
    ]),
    ...Object.entries(manifest.totals ?? {}).map(([name, value]): [string, string] => [
      totalWords(name),
      value,
    ]),
    ...listedOrCounted('Windows', manifest.windows, (w) => [
      `Window ${w.label}`,
      windowWords(w.start, w.end, manifest.period.timeZone),
    ]),
    ...listedOrCounted('Shards', manifest.shards, (s) => [
      `Shard ${s.id}`,
      `${s.rows} rows${s.totalReported === null ? '' : ` (service reported ${s.totalReported})`}`,
    ]),
    ...manifest.files.map((f): [string, string] => [
      `File ${f.name}`,
      `sha256 ${f.sha256}, ${f.bytes} bytes`,
    ]),
  ];
  return {
    spec: {
      name: 'about',
      title: 'About',
      columns: [
        { key: 'item', header: 'Item', kind: 'text' },
        // Wraps, so a long value (a file's hash) prints on the page, not on pages of its own.
        { key: 'value', header: 'Value', kind: 'text', wrap: true, width: 80 },
      ],
    },
    async *rows() {
      yield* pairs;
    },
  };
}
