import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import type { TableSource } from '../../domain/index.ts';
import { type Digest, hashedFile } from '../../storage/index.ts';
import type { LiveListener, LiveTables } from './report-model.ts';
import type { RowChannel } from './row-channel.ts';
import { type CsvOptions, writeCsv } from './writers/csv.ts';
import { writeXlsx, type XlsxOptions } from './writers/xlsx.ts';
import { type StartedWorker, startBookWorker } from './writers/xlsx-thread.ts';

/** A report file written in full to the run's scratch folder, ready to be published as it is. */
export interface LiveFile {
  file: string;
  /** Data rows written (every sheet's, for a workbook). */
  rows: number;
  /** Size and SHA-256, taken while writing (the CSV files, which the workbook's About sheet lists). */
  digest?: Digest;
}

/**
 * Report files written while the snapshot is assembled (see `ReportModel`'s `live`): the CSV of
 * each live table, and a workbook whose first sheet is the first live table and whose other
 * sheets are added once assembly is over. Files go to the scratch folder, never to the sink: a
 * run publishes only after every shard is fetched. A file whose writer failed or was abandoned
 * is reported as null, and the publisher renders it from the snapshot instead.
 */
export interface LiveOutputs extends LiveListener {
  /** The finished CSV file of live table `name`, or null. Call after the model's `endLive`. */
  csv(name: string): Promise<LiveFile | null>;
  /**
   * Finishes the workbook with `rest` (the sheets after the live one, produced when the writer
   * reaches them) and returns it, or null when it was not written live.
   */
  workbook(rest: () => AsyncIterable<TableSource>): Promise<LiveFile | null>;
  /** Stops every live writer (the run failed) and waits until they have let go of their files. */
  abort(error: Error): Promise<void>;
}

/** Live outputs for `formats`, written under `workDir`. */
export function createLiveOutputs(options: {
  formats: readonly ('csv' | 'xlsx')[];
  csv: CsvOptions;
  /** Options of the workbook (print setup, first sheet). */
  xlsx?: XlsxOptions;
  workDir: string;
}): LiveOutputs {
  const csvFiles = new Map<string, Promise<LiveFile | null>>();
  const channels: RowChannel[] = [];
  let workbook: {
    result: Promise<LiveFile | null>;
    rest: (sheets: (() => AsyncIterable<TableSource>) | Error) => void;
  } | null = null;
  // The workbook's thread starts now, so that starting it overlaps the fetch rather than
  // delaying the first rows; a run that never opens the workbook ends it (see `dropWorker`).
  const started: StartedWorker | undefined =
    options.formats.includes('xlsx') && options.xlsx?.thread !== 'same-thread'
      ? startBookWorker(options.xlsx?.workerEntry)
      : undefined;
  /** Ends the started thread if the live workbook did not take it. */
  const dropWorker = async () => started?.end();

  // A writer that fails stops reading: its channel must drop further rows, or the producer would
  // wait for it forever. The publisher renders that file again (and meets the same error, if any).
  const settle = (written: Promise<LiveFile>, channel: RowChannel): Promise<LiveFile | null> =>
    written.catch((error: unknown) => {
      channel.fail(error instanceof Error ? error : new Error(String(error)));
      return null;
    });

  return {
    open(tables: LiveTables) {
      if (options.formats.includes('csv')) {
        for (const spec of tables.specs) {
          const channel = tables.channel(spec.name);
          channels.push(channel);
          const file = join(options.workDir, `live-${spec.name}.csv`);
          const { stream, done } = hashedFile(file);
          const written = writeCsv(channel, stream, options.csv).then(async ({ rows }) => ({
            file,
            rows,
            digest: await done,
          }));
          csvFiles.set(spec.name, settle(written, channel));
        }
      }
      const first = tables.specs[0];
      if (options.formats.includes('xlsx') && first !== undefined) {
        const channel = tables.channel(first.name);
        channels.push(channel);
        let rest: (sheets: (() => AsyncIterable<TableSource>) | Error) => void = () => {};
        const restReady = new Promise<(() => AsyncIterable<TableSource>) | Error>((resolve) => {
          rest = resolve;
        });
        async function* sheets(): AsyncGenerator<TableSource> {
          yield channel;
          const more = await restReady;
          if (more instanceof Error) throw more;
          yield* more();
        }
        const file = join(options.workDir, 'live.xlsx');
        const xlsx = { ...options.xlsx, ...(started ? { started } : {}) };
        const written = writeXlsx(sheets(), createWriteStream(file), xlsx).then((result) => ({
          file,
          rows: result.sheets.reduce((sum, sheet) => sum + sheet.rows, 0),
        }));
        workbook = { result: settle(written, channel), rest };
      }
    },
    csv: (name) => csvFiles.get(name) ?? Promise.resolve(null),
    async workbook(rest) {
      if (workbook === null) {
        await dropWorker();
        return null;
      }
      workbook.rest(rest);
      return await workbook.result;
    },
    async abort(error) {
      for (const channel of channels) channel.fail(error);
      workbook?.rest(error);
      await Promise.all([...csvFiles.values(), workbook?.result, dropWorker()]);
    },
  };
}
