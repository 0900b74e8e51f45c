#!/usr/bin/env node
import { main } from '../lib/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  now: () => new Date(),
});
