/** The process around the CLI: streams, environment and clock, injected for tests. */
export interface CliIo {
  stdout: { write(text: string): unknown; isTTY?: boolean };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
  now: () => Date;
  /** Aborted on SIGINT/SIGTERM (see `stopOnSignals`): the run stops and removes what it wrote. */
  signal?: AbortSignal;
  /** The running Node's version (`process.version`): on one past its end of life, S3 commands say so once. */
  nodeVersion?: string;
}
