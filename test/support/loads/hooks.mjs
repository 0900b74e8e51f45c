/** Module hooks of `record.mjs`: appends each URL an ESM import resolves to, one a line. */
import { appendFileSync } from 'node:fs';

let out;

/** Receives the record file's name from `record.mjs`. */
export function initialize(data) {
  out = data.out;
}

/** Resolves as Node (and the hooks before this one) would, and records the result. */
export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  appendFileSync(out, `${resolved.url}\n`);
  return resolved;
}
