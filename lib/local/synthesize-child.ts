/**
 * FOR LOCAL USE ONLY: run as a child process by `synthesizeInChild` (`machine-synthesis.ts`).
 * Synthesizes the export state machine with the overrides given as JSON in `argv[2]` and sends
 * it to the parent over IPC. The CDK import and synthesis take tens of seconds of CPU: in a child
 * they keep neither the server's start nor its event loop waiting.
 */
import { synthesizeExportMachine } from '../../infra/definitions.ts';

const overrides = JSON.parse(process.argv[2] ?? '{}') as Parameters<typeof synthesizeExportMachine>[0];
const machine = synthesizeExportMachine(overrides);
process.send?.(machine, () => process.disconnect());
