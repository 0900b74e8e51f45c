#!/usr/bin/env node
/**
 * `npm run serve`: `bin/serve.ts` run in this one process, with tsx's loader registered here (as
 * `bin/pbs-export.mjs` does for the CLI).
 *
 * Not the `tsx` command: that runs the script in a second Node process and relays SIGINT to it.
 * A Ctrl-C in a terminal signals the whole process group, so the script got it twice (the
 * terminal's, then tsx's relay), and the second ended it at once: no message, no clean-up.
 */
import { register } from 'tsx/esm/api';

register();
await import('./serve.ts');
