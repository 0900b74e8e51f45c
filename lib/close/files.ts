/**
 * A restatement as files, like every report: a CSV per table, one workbook (Read me first), a
 * README.txt, the corrected snapshot it was computed from, and a manifest written last, published
 * as one set at `restatements/{profile}/{period}/{id}/`.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Column, Row, TableSource } from '../domain/index.ts';
import { DEMO_BANNER, writeCsv, writeXlsx } from '../export/index.ts';
import { ledgerFileName } from '../ledger/index.ts';
import { stringifyJson } from '../pbs/index.ts';
import type { Sink, StoredObject } from '../storage/index.ts';
import {
  type AdjustingManifest,
  adjustingFiles,
  adjustingManifest,
  adjustingTable,
  adjustingWords,
} from './adjusting-files.ts';
import type { Restatement } from './restatement.ts';
import { periodWords, restatementSentence } from './words.ts';

export const RESTATEMENT_FORMAT = 'pbs-export/restatement@1';

/** What a restatement's manifest holds. */
export interface RestatementManifest {
  format: typeof RESTATEMENT_FORMAT;
  profile: string;
  period: string;
  /** The Read me's first sentence. */
  summary: string;
  close: Restatement['info']['close'];
  closedSnapshot: Restatement['info']['closedSnapshot'];
  checkedAt: string;
  /**
   * Its place in the close's chain of restatements, which its restatement record holds (see
   * restatement-records.ts). Absent: published before restatement records.
   */
  sequence?: number;
  /** The instant the timeline was asked from: the closed set's fetch instant. */
  since?: string;
  /**
   * The restatement this one supersedes (the latest of the same close when it was made): this
   * one states every change since the close again; its adjusting entries are the difference to
   * that one's. Absent: the close's first restatement.
   */
  supersedes?: { prefix: string; checkedAt: string };
  counts: { added: number; modified: number; deleted: number; effects: number };
  /** With the journal report: the adjusting entries (their files are in `files`). */
  adjusting?: AdjustingManifest;
  files: StoredObject[];
}

const text = (key: string, header: string, description: string, wrap = false): Column => ({
  key,
  header,
  kind: 'text',
  description,
  ...(wrap ? { wrap: true, width: 60 } : {}),
});
const decimal = (key: string, header: string, description: string): Column => ({
  key,
  header,
  kind: 'decimal',
  description,
});

/** One row per changed field (modified) or per whole transaction (added, deleted). */
export function changesTable(restatement: Restatement): TableSource {
  const columns: Column[] = [
    text('change', 'Change', 'added, modified or deleted after the close'),
    text('transaction_id', 'Transaction ID', 'id of the transaction'),
    text('last_modified', 'Last modified (UTC)', "the timeline's lastModifiedDate of the change"),
    text('field', 'Field', 'the field that differs (modified); empty: the whole transaction'),
    text('before', 'Closed', 'the value in the closed set (a text as it is, other values as JSON)', true),
    text('after', 'Now', 'the value the service has now (a text as it is, other values as JSON)', true),
  ];
  const rows = (): Row[] =>
    restatement.changes.flatMap((change): Row[] =>
      change.kind === 'modified'
        ? change.fields.map((f) => [
            change.kind,
            change.id,
            change.lastModified,
            f.field,
            leafText(f.before),
            leafText(f.after),
          ])
        : [[change.kind, change.id, change.lastModified, null, json(change.before), json(change.after)]],
    );
  return {
    spec: {
      name: 'restatement_changes',
      title: 'Changes',
      description: 'the transactions before and after',
      columns,
    },
    rows: iterate(rows),
  };
}

/** One row per total of the closed set that changed: closed, corrected, difference. */
export function effectsTable(restatement: Restatement): TableSource {
  const columns: Column[] = [
    text('report', 'Report', 'the report (sheet) of the closed set'),
    text('row', 'Row', "the row's text cells (month, token, tax year, term…)"),
    text('column', 'Column', 'the figure'),
    text('column_key', 'Column key', "the figure's column in the closed set's CSV file"),
    decimal('closed', 'Closed', 'the figure in the closed set'),
    decimal('corrected', 'Corrected', 'the figure with the changes'),
    decimal('difference', 'Difference', 'corrected − closed'),
  ];
  const rows = (): Row[] =>
    restatement.effects.map((e) => [
      e.tableTitle,
      e.row.filter((c) => c !== '').join(' · '),
      e.header,
      e.column,
      e.before,
      e.after,
      e.change,
    ]);
  return {
    spec: {
      name: 'restatement_effects',
      title: 'Effect on totals',
      description: 'every total that changed',
      columns,
    },
    rows: iterate(rows),
  };
}

/** The Read me lines: the sentence, the close, where the figures come from. */
export function restatementReadme(restatement: Restatement): [string, string][] {
  const { close, closedSnapshot, checkedAt } = restatement.info;
  return [
    ...(restatement.demo
      ? ([[DEMO_BANNER, 'made by the simulator built into pbs-export: not for filing or booking']] as [
          string,
          string,
        ][])
      : []),
    ['Summary', restatementSentence(restatement)],
    [
      'Closed set',
      `${close.prefix} (manifest SHA-256 ${close.manifestSha256}), closed by ${close.by} at ${close.at}${close.reason ? `: ${close.reason}` : ''}`,
    ],
    [
      'Checked',
      `the service's timeline since ${restatement.info.since ?? close.at}${restatement.info.since === undefined ? '' : ' (when the closed set was fetched)'}, asked at ${checkedAt}`,
    ],
    ...supersedesLine(restatement),
    [
      'Changes',
      'one row per changed field of a modified transaction, one row per added or deleted transaction (its whole record)',
    ],
    [
      'Effect on totals',
      "the closed set's report builders run on the closed and the corrected transactions; every figure that differs, with corrected − closed",
    ],
    [
      'Rebuilt from',
      `the closed snapshot ${closedSnapshot.name} (SHA-256 ${closedSnapshot.sha256}) and the corrected snapshot in this set: pbs-export restate --closed … --corrected … rebuilds these files offline`,
    ],
    [
      'Booking',
      `the closed period ${periodWords(restatement.period)} stays as delivered; book the differences in the first open period`,
    ],
    ...(restatement.journal === undefined
      ? []
      : ([
          ['Adjusting entries', adjustingWords(restatement, restatement.journal)],
          [
            'Adjusting files',
            `${restatement.info.supersedes === undefined ? "the closed journal's account balances plus these entries" : "the closed journal's account balances plus the adjusting entries of every restatement of this close, in order, up to these"} are the corrected journal's, per account and token; dated the first day of the first open period (the day after the profile's latest closed period when the change was found), in the closed set's journal formats`,
          ],
        ] as [string, string][])),
  ];
}

/** The Read me's line naming the restatement this one supersedes, if any. */
function supersedesLine(restatement: Restatement): [string, string][] {
  const superseded = restatement.info.supersedes;
  if (superseded === undefined) return [];
  return [
    [
      'Supersedes',
      `the restatement ${superseded.prefix} (checked at ${superseded.checkedAt}): this one states every change since the close again, that one's included; its adjusting entries are only the difference to what that one's (and those before it) booked: book them after those, not instead`,
    ],
  ];
}

function readmeTable(restatement: Restatement): TableSource {
  const columns = [text('item', 'Item', 'what the line is about'), text('text', 'Text', 'the line', true)];
  return {
    spec: { name: 'readme', title: 'Read me', columns },
    rows: iterate(() => restatementReadme(restatement)),
  };
}

function iterate(rows: () => Row[]): () => AsyncIterable<Row> {
  return async function* read() {
    yield* rows();
  };
}

/**
 * A changed field's value as a cell: a text as it is (`6713.60`, not the JSON `"6713.60"`, which a
 * CSV file then quotes again as `"""6713.60"""`), a number, boolean or structure as its JSON.
 */
function leafText(jsonText: string | null): string | null {
  if (jsonText === null || !jsonText.startsWith('"')) return jsonText;
  return JSON.parse(jsonText) as string;
}

function json(value: unknown): string | null {
  return value === null ? null : stringifyJson(value);
}

/** A rendered file in the scratch folder. */
interface Rendered {
  name: string;
  file: string;
  contentType: string;
}

/** Writes the restatement's files into `workDir` (the corrected snapshot is given, already written). */
export async function renderRestatement(
  restatement: Restatement,
  options: {
    workDir: string;
    correctedFile: string;
    csv?: { delimiter?: string; decimalSeparator?: '.' | ',' };
  },
): Promise<Rendered[]> {
  const base = `${restatement.profile}_${restatement.period}`;
  const out: Rendered[] = [];
  const write = async (name: string, contentType: string, fill: (stream: Writable) => Promise<unknown>) => {
    const file = join(options.workDir, name);
    const stream = createWriteStream(file);
    const closed = new Promise<void>((resolve, reject) =>
      stream.on('close', () => resolve()).on('error', reject),
    );
    await fill(stream);
    await closed;
    out.push({ name, file, contentType });
  };
  const journal = restatement.journal;
  const tables = [
    changesTable(restatement),
    effectsTable(restatement),
    ...(journal === undefined || journal.entries.length === 0 ? [] : [adjustingTable(journal)]),
  ];
  for (const table of tables) {
    // The closed set's dialect (recorded in its snapshot), so an offline rebuild writes the same bytes.
    await write(`${base}_${table.spec.name}.csv`, 'text/csv; charset=utf-8', (stream) =>
      writeCsv(table, stream, { ...(options.csv ?? restatement.csv) }),
    );
  }
  for (const file of journal === undefined ? [] : adjustingFiles(restatement, journal)) {
    await write(ledgerFileName(`${base}_adjusting_`, file), file.contentType, async (stream) => {
      stream.end(file.body);
    });
  }
  await write(
    `${base}_restatement.xlsx`,
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    (stream) =>
      writeXlsx([readmeTable(restatement), ...tables], stream, {
        creator: 'pbs-export',
        // When the service was asked for the corrections, not the clock: an offline rebuild writes the same bytes.
        created: new Date(restatement.info.checkedAt),
        print: {
          center: `Profile ${restatement.profile} · restatement of ${periodWords(restatement.period)}`,
          ...(restatement.demo ? { right: DEMO_BANNER } : {}),
        },
      }),
  );
  await write('README.txt', 'text/plain; charset=utf-8', async (stream) => {
    stream.end(
      `${restatementReadme(restatement)
        .map(([item, line]) => `${item}: ${line}`)
        .join('\n')}\n`,
    );
  });
  out.push({
    name: `${base}_corrected_snapshot.ndjson.gz`,
    file: options.correctedFile,
    contentType: 'application/gzip',
  });
  return out;
}

/**
 * Publishes the rendered files as one set at `prefix` of `sink`, the manifest last; returns the
 * manifest. `beforeCommit` runs once every file is staged and verified, before any is put in
 * place: when it throws, the set is discarded (nothing appears) and the error rethrown.
 */
export async function publishRestatement(
  restatement: Restatement,
  rendered: readonly Rendered[],
  target: { sink: Sink; prefix: string; beforeCommit?: (manifest: RestatementManifest) => Promise<void> },
): Promise<RestatementManifest> {
  const set = await target.sink.openSet(target.prefix);
  try {
    const files: StoredObject[] = [];
    for (const file of rendered) {
      const object = set.create(file.name, file.contentType);
      await pipeline(createReadStream(file.file), object.stream);
      files.push({ ...(await object.done()), name: file.name });
    }
    await set.verify();
    const count = (kind: string) => restatement.changes.filter((c) => c.kind === kind).length;
    const manifest: RestatementManifest = {
      format: RESTATEMENT_FORMAT,
      profile: restatement.profile,
      period: restatement.period,
      summary: restatementSentence(restatement),
      close: restatement.info.close,
      closedSnapshot: restatement.info.closedSnapshot,
      checkedAt: restatement.info.checkedAt,
      ...(restatement.info.sequence === undefined ? {} : { sequence: restatement.info.sequence }),
      ...(restatement.info.since === undefined ? {} : { since: restatement.info.since }),
      ...(restatement.info.supersedes === undefined
        ? {}
        : {
            supersedes: {
              prefix: restatement.info.supersedes.prefix,
              checkedAt: restatement.info.supersedes.checkedAt,
            },
          }),
      counts: {
        added: count('added'),
        modified: count('modified'),
        deleted: count('deleted'),
        effects: restatement.effects.length,
      },
      ...(restatement.journal === undefined ? {} : { adjusting: adjustingManifest(restatement.journal) }),
      files,
    };
    const object = set.create('manifest.json', 'application/json');
    object.stream.end(`${JSON.stringify(manifest, null, 2)}\n`);
    await object.done();
    await target.beforeCommit?.(manifest);
    await set.commit();
    return manifest;
  } catch (error) {
    await set.discard().catch(() => {});
    throw error;
  }
}
