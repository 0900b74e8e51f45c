/**
 * Preloaded into a CLI process (`node --import tsx --import kill-on-write.ts bin/pbs-export.ts …`)
 * to kill it with SIGKILL at the worst instant of a write under the folder
 * `PBS_TEST_KILL_WRITE_UNDER`: the file is created, none of its bytes written. That instant lasts
 * microseconds, too short for a signal sent from outside to land in; here the process sends
 * SIGKILL to itself there, so the kernel ends it as `kill -9` would (no handler, no cleanup).
 *
 * Both ways of writing a file under that folder are covered: `writeFile(path, …)` (the file is
 * opened with the caller's flag, then the process dies) and `open(path, …)` followed by a write
 * on the handle (the process dies at the write).
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { resolve, sep } from 'node:path';

const folder = process.env.PBS_TEST_KILL_WRITE_UNDER;

if (folder !== undefined && folder !== '') {
  const root = resolve(folder) + sep;
  const under = (path: unknown) => typeof path === 'string' && resolve(path).startsWith(root);
  const die = (): never => {
    process.kill(process.pid, 'SIGKILL');
    throw new Error('unreachable: SIGKILL sent');
  };
  const promises = fs.promises;
  const { open, writeFile } = promises;

  promises.writeFile = (async (path: Parameters<typeof writeFile>[0], ...rest: unknown[]) => {
    if (!under(path)) return (writeFile as (...args: unknown[]) => Promise<void>)(path, ...rest);
    const options = rest[1];
    const flag =
      typeof options === 'object' && options !== null && 'flag' in options ? String(options.flag) : 'w';
    await open(path as string, flag);
    return die();
  }) as typeof writeFile;

  promises.open = (async (path: Parameters<typeof open>[0], ...rest: unknown[]) => {
    const handle: FileHandle = await (open as (...args: unknown[]) => Promise<FileHandle>)(path, ...rest);
    if (under(path)) {
      handle.writeFile = async () => die();
      handle.write = (async () => die()) as FileHandle['write'];
    }
    return handle;
  }) as typeof open;

  // `import { writeFile } from 'node:fs/promises'` in modules loaded after this one sees these.
  syncBuiltinESMExports();
}
