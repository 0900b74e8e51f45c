#!/usr/bin/env node
/**
 * The `pbs-export` command (`npx pbs-export`, `npm run pbs-export --`): the TypeScript CLI
 * (`bin/pbs-export.ts`) run in this one process, with tsx's loader registered here.
 *
 * Not the `tsx` command: that runs the CLI in a second Node process and relays SIGINT to it. A
 * Ctrl-C in a terminal signals the whole process group, so the CLI got it twice (the terminal's,
 * then tsx's relay a few milliseconds later, or tsx's SIGKILL when the CLI did not tell tsx over
 * its pipe in time): the second signal means "exit now", so the run exited 130 without its
 * message and left its scratch folder. Here the CLI is the only Node process, and `tsx` resolves
 * from this file, so the command runs from any folder.
 */
import { register } from 'tsx/esm/api';

register();
await import('./pbs-export.ts');
