import cliProgress from 'cli-progress';
import type { ExportProgress } from '../export/index.ts';

export interface ProgressReporter {
  update(progress: ExportProgress): void;
  stop(): void;
}

/**
 * Reports a run's progress: a bar (shards fetched, pages, rows) on a terminal, plain lines
 * otherwise, so logs stay readable in CI and Lambda.
 */
export function createProgressReporter(out: {
  write(text: string): unknown;
  isTTY?: boolean;
}): ProgressReporter {
  return out.isTTY ? terminalReporter() : lineReporter(out);
}

function lineReporter(out: { write(text: string): unknown }): ProgressReporter {
  return {
    update(progress) {
      switch (progress.stage) {
        case 'planned':
          out.write(`planned ${progress.windows} window(s), ${progress.shards} shard(s)\n`);
          break;
        case 'shard':
          out.write(`fetched shard ${progress.shard}: ${progress.rows} row(s)\n`);
          break;
        case 'fetched':
          out.write(`fetched ${progress.transactions} transaction(s)\n`);
          break;
        case 'published':
          // Staged: the file reaches this name with the rest of the run, manifest last.
          out.write(`written ${progress.file} (${progress.bytes} bytes)\n`);
          break;
        case 'page':
          break;
      }
    },
    stop() {},
  };
}

function terminalReporter(): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    { format: 'fetch [{bar}] {value}/{total} shards | {pages} pages | {rows} rows', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let pages = 0;
  let rows = 0;
  let started = false;
  return {
    update(progress) {
      if (progress.stage === 'planned') {
        bar.start(progress.shards, 0, { pages, rows });
        started = true;
      } else if (progress.stage === 'page') {
        pages += 1;
        rows += progress.rows;
        bar.update({ pages, rows });
      } else if (progress.stage === 'shard') {
        bar.increment(1, { pages, rows });
      } else if (progress.stage === 'fetched' && started) {
        bar.stop();
        started = false;
      }
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
