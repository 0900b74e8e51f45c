/**
 * FOR LOCAL USE ONLY: run as a child process by `synthesizeInChild` (`machine-synthesis.ts`).
 * Synthesizes the export state machine with the overrides given as JSON in `argv[2]` and sends
 * it to the parent over IPC. The CDK import and synthesis take tens of seconds of CPU: in a child
 * they keep neither the server's start nor its event loop waiting.
 */
// A Ctrl-C in a terminal signals the whole process group, this child too: stopping it is the
// parent's (`cancel()`, when `serve` stops), which would otherwise see a synthesis that failed.
// Set before the CDK's seconds of loading, hence the import after it.
for (const signal of ['SIGINT', 'SIGHUP'] as const) process.on(signal, () => {});
const { synthesizeExportMachine } = await import('../../infra/definitions.ts');

const overrides = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof synthesizeExportMachine>[0];
const machine = synthesizeExportMachine(overrides);
// A parent gone meanwhile (stopped at once) waits for nothing.
if (process.connected) process.send?.(machine, () => process.disconnect());
