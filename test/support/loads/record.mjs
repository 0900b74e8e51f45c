/**
 * Preloaded into a child process (`node --import <this file>`): records every module the process
 * loads, one URL a line, into the file `PBS_RECORD_LOADS` names (appended to, so threads share it).
 *
 * Two records, because Node loads a module one of two ways: every ESM `import` (static or dynamic)
 * goes through the resolve hook of `hooks.mjs`, and every CommonJS module, whether `require`d or
 * imported from ESM (the AWS SDK's packages resolve to their CommonJS builds under Node), is in
 * `require.cache` when the thread exits. Plain JavaScript, so it runs before any TypeScript loader.
 */
import { appendFileSync } from 'node:fs';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';

const out = process.env.PBS_RECORD_LOADS;
if (out) {
  register('./hooks.mjs', import.meta.url, { data: { out } });
  const { cache } = createRequire(import.meta.url);
  process.on('exit', () => {
    const loaded = Object.keys(cache).map((file) => `${pathToFileURL(file).href}\n`);
    appendFileSync(out, loaded.join(''));
  });
}
