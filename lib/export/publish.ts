import { createReadStream } from 'node:fs';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ruleSet } from '../gains/rules.ts';
import type { Sink, SinkObject, SinkSet, StoredObject } from '../storage/sink.ts';
import { FEE_TREATMENT } from './gains-feed.ts';
import type { LiveOutputs } from './live-outputs.ts';
import {
  DEMO_BANNER,
  MANIFEST_FORMAT,
  MANIFEST_NAME,
  type Manifest,
  type ManifestFile,
  moneyRounding,
} from './manifest.ts';
import { periodLabel, periodRange } from './period.ts';
import { gainsPolicyPairs, POOLS, README_FILE, type ReadmeInput, readmeTable, readmeText } from './readme.ts';
import { observeSnapshot, type ReportModel } from './report-model.ts';
import { type ExportRequest, parseExportRequest } from './request.ts';
import type { SnapshotHeader } from './snapshot.ts';
import type { TableSource } from './table.ts';
import { writeCsv } from './writers/csv.ts';
import { writeXlsx, type XlsxOptions } from './writers/xlsx.ts';

export interface PublishInput {
  snapshotFile: string;
  header: SnapshotHeader;
  sink: Sink;
  /** Folder of the run inside the sink, e.g. `reports/demo/2025/20261122T041500Z-3f9a1c`. */
  prefix: string;
  runId: string;
  now: () => Date;
  generator: { name: string; version: string };
  /** Counts gathered before rendering (fetch and assembly), recorded in the manifest. */
  counts: Record<string, number>;
  /** Formats to write instead of the request's (render from a snapshot). */
  formats?: readonly ('csv' | 'xlsx')[];
  onPublished?: (file: StoredObject) => void;
  /** A model that has already observed every record (during assembly); else one pass is made. */
  model?: ReportModel;
  /** Told when removing the files of a failed run fails (the run's own error is still thrown). */
  onCleanupError?: (error: unknown) => void;
  /**
   * Stops publishing (Ctrl-C, SIGTERM): the file being written is aborted, what was staged is
   * removed, and the promise rejects with the signal's reason. Once the set is in place it stays.
   */
  signal?: AbortSignal;
  /** Report files the model's live tables were written to while assembling (see `LiveOutputs`). */
  live?: LiveOutputs;
}

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  gzip: 'application/gzip',
  json: 'application/json',
} as const;

/** Name (`spec.name`) of the Read me table: the workbook's first sheet. */
export const README_TABLE = 'readme';

/**
 * How a run's workbook is written: every printed page names the profile, the period and its zone
 * (and, on the simulator's data, the demo banner), and the Read me sheet is listed first.
 */
export function workbookOptions(request: ExportRequest, demo: boolean): XlsxOptions {
  return {
    print: {
      center: `Profile ${request.profile} · ${periodLabel(request.period)} (${request.timeZone})`,
      ...(demo ? { right: DEMO_BANNER } : {}),
    },
    firstSheet: README_TABLE,
  };
}

/**
 * Renders the requested reports from a snapshot and publishes them with the snapshot itself, as
 * one set of the sink (see `SinkSet`): the snapshot first, then the CSV files, then the workbook
 * (whose About sheet lists the files before it), and the manifest last; then the set is put in
 * place, the manifest last. Any failure or abort aborts the file being written, removes what the
 * set had staged (and anything already put in place) and rejects, so a failed or stopped run
 * leaves nothing under its final folder.
 */
export async function publishReports(input: PublishInput): Promise<Manifest> {
  input.signal?.throwIfAborted();
  const set = await input.sink.openSet(input.prefix);
  try {
    const manifest = await publishAll(input, set);
    input.signal?.throwIfAborted();
    await set.commit(input.signal ? { signal: input.signal } : {});
    return manifest;
  } catch (error) {
    // Best effort: the error that failed the run is the one the caller sees.
    await set.discard().catch((cleanupError: unknown) => input.onCleanupError?.(cleanupError));
    throw error;
  }
}

/** Aborts `object` when `signal` fires while it is written; returns the listener's remover. */
function abortOnSignal(object: SinkObject, signal: AbortSignal | undefined): () => void {
  if (signal === undefined) return () => {};
  const abort = () => {
    void object.abort(signal.reason);
  };
  signal.addEventListener('abort', abort, { once: true });
  return () => signal.removeEventListener('abort', abort);
}

async function publishAll(input: PublishInput, set: SinkSet): Promise<Manifest> {
  const request: ExportRequest = parseExportRequest(input.header.request);
  const formats = input.formats ?? request.formats;
  const baseName = `${request.profile}_${periodLabel(request.period)}`;
  const model = input.model ?? (await observeSnapshot(input.snapshotFile, input.header, request));
  const tables = model.tables(input.snapshotFile);
  // Companions for machines (the exact figures of rounded tables) are files, not sheets.
  const sheets = tables.filter((table) => table.spec.csvOnly !== true);
  const totals = model.totals();
  const files: ManifestFile[] = [];
  const demo = input.header.demo === true;
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
  };

  const publish = async (
    name: string,
    contentType: string,
    write: (out: Writable) => Promise<number | undefined>,
  ) => {
    input.signal?.throwIfAborted();
    const object = set.create(name, contentType);
    const unlisten = abortOnSignal(object, input.signal);
    try {
      const rows = await write(object.stream);
      const stored = { ...(await object.done()), name };
      input.signal?.throwIfAborted();
      files.push(rows === undefined ? stored : { ...stored, rows });
      input.onPublished?.(stored);
    } catch (error) {
      await object.abort(error);
      // Whatever failed once the signal fired (a destroyed stream), the run was stopped.
      input.signal?.throwIfAborted();
      throw error;
    } finally {
      unlisten();
    }
  };

  /** Publishes a file written in full beforehand, as it is. */
  const copy = (file: string, rows?: number) => async (out: Writable) => {
    await pipeline(createReadStream(file), out);
    return rows;
  };
  await publish(`${baseName}_snapshot.ndjson.gz`, CONTENT_TYPES.gzip, copy(input.snapshotFile));
  if (formats.includes('csv')) {
    for (const table of tables) {
      const written = (await input.live?.csv(table.spec.name)) ?? null;
      const render = async (out: Writable) => {
        const { rows } = await writeCsv(table, out, {
          delimiter: request.csv.delimiter,
          decimalSeparator: request.csv.decimalSeparator,
        });
        return rows;
      };
      await publish(
        `${baseName}_${table.spec.name}.csv`,
        CONTENT_TYPES.csv,
        written === null ? render : copy(written.file, written.rows),
      );
    }
    await publish(README_FILE, CONTENT_TYPES.text, async (out) => {
      out.end(readmeText(readme));
      return undefined;
    });
  }
  const range = periodRange(request.period, request.timeZone);
  const period = {
    label: periodLabel(request.period),
    start: range.start.toUTC().toISO() ?? '',
    end: range.end.toUTC().toISO() ?? '',
    timeZone: request.timeZone,
  };
  const money = moneyRounding(
    tables.map((table) => table.spec),
    formats.includes('csv') ? (name) => `${baseName}_${name}.csv` : null,
  );
  const gainsNotes = {
    feeTreatment: FEE_TREATMENT,
    timeZone: request.timeZone,
    ...(money === null ? {} : { money }),
  };
  const manifestBase = {
    format: MANIFEST_FORMAT,
    generator: input.generator,
    runId: input.runId,
    createdAt: input.header.createdAt,
    request,
    period,
    apiBase: input.header.apiBase,
    ...(demo ? { demo: true as const, notice: DEMO_BANNER as typeof DEMO_BANNER } : {}),
    windows: input.header.windows,
    shards: input.header.shards,
    counts: { ...input.counts, ...model.counts() },
    totals,
    ...(request.gains !== undefined ? { gains: { ...request.gains, ...gainsNotes } } : {}),
  } as const;
  if (formats.includes('xlsx')) {
    const about = () =>
      aboutTable({
        ...manifestBase,
        completedAt: input.now().toISOString(),
        files: [...files],
      });
    // The live workbook's first sheet is the first table: it goes on with the others and About.
    const written =
      (await input.live?.workbook(async function* rest() {
        yield* sheets.slice(1);
        yield about();
        yield readmeTable(readme);
      })) ?? null;
    await publish(`${baseName}.xlsx`, CONTENT_TYPES.xlsx, async (out) => {
      if (written !== null) return await copy(written.file, written.rows)(out);
      const options = workbookOptions(request, demo);
      const result = await writeXlsx([...sheets, about(), readmeTable(readme)], out, options);
      return result.sheets.reduce((sum, sheet) => sum + sheet.rows, 0);
    });
  }
  const manifest: Manifest = { ...manifestBase, completedAt: input.now().toISOString(), files: [...files] };
  await publish(MANIFEST_NAME, CONTENT_TYPES.json, async (out) => {
    out.end(`${JSON.stringify(manifest, null, 2)}\n`);
    return undefined;
  });
  return manifest;
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
      requestPairs(child, path === 'Request' ? `Request: ${key}` : `${path}.${key}`),
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
function aboutTable(manifest: Manifest): TableSource {
  const { gains } = manifest.request as ExportRequest;
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
    ['Time zone', manifest.period.timeZone],
    ['API base', manifest.apiBase],
    ...requestPairs(manifest.request),
    ['Created at', manifest.createdAt],
    ...(manifest.gains
      ? ([
          ['Gains: lot method', manifest.gains.method],
          ['Gains: pools', POOLS[manifest.gains.pooling] ?? manifest.gains.pooling],
          ['Gains: fee treatment', manifest.gains.feeTreatment],
          [
            'Gains: tax year starts',
            // The rule set's zone governs its tax years (uk: Europe/London), else the request's.
            `${manifest.gains.taxYearStart} (MM-DD, in ${(gains && ruleSet(gains.taxRules).timeZone) ?? manifest.gains.timeZone})`,
          ],
          ['Gains: long term', `held more than ${manifest.gains.longTermYears} year(s)`],
          ...(gains === undefined ? [] : gainsPolicyPairs(gains)).map(([topic, words]): [string, string] => [
            `Gains: ${topic}`,
            words,
          ]),
        ] as [string, string][])
      : []),
    ...Object.entries(manifest.counts).map(([key, value]): [string, string] => [
      `Count: ${key}`,
      String(value),
    ]),
    ...listedOrCounted('Windows', manifest.windows, (w) => [`Window ${w.label}`, `${w.start} to ${w.end}`]),
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
        { key: 'value', header: 'Value', kind: 'text' },
      ],
    },
    async *rows() {
      yield* pairs;
    },
  };
}
