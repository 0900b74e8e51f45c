/**
 * Preloaded into a child process (`node --import tsx --import <this file> …`): at exit, writes the
 * process's peak resident memory (max RSS, in KiB, as `getrusage` reports it) to the file that
 * `PBS_MAX_RSS_FILE` names, so a test can tell how much memory the child ever held.
 */
import { writeFileSync } from 'node:fs';

/** The environment variable naming the file the peak RSS is written to. */
export const MAX_RSS_FILE_ENV = 'PBS_MAX_RSS_FILE';

const file = process.env[MAX_RSS_FILE_ENV];
if (file !== undefined && file !== '') {
  process.on('exit', () => {
    writeFileSync(file, `${process.resourceUsage().maxRSS}\n`);
  });
}
