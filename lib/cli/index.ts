/** The command line of pbs-export (`bin/pbs-export.ts`): parsing, the commands, and their exit codes. */
export { main } from './main.ts';
export { stopOnSignals } from './signals.ts';
