#!/usr/bin/env node
import { main, stopOnSignals } from '../lib/cli/index.ts';

// The AWS SDK's nine-line notice that its 2027 releases need Node 22: the CLI says it in one line
// (lib/cli/main.ts), once per command. An explicit setting of the variable is kept.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

// The first Ctrl-C or SIGTERM stops the run, which removes what it wrote; a second one exits now.
const stop = stopOnSignals(process, (code) => process.exit(code));
const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  now: () => new Date(),
  signal: stop.signal,
  nodeVersion: process.version,
});
stop.dispose();
// A stopped run has cleaned up: requests it abandoned must not keep the process alive.
if (stop.signal.aborted) process.exit(code);
process.exitCode = code;
