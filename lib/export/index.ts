/**
 * The export pipeline, stage by stage, each a folder with one face:
 * `plan/` (the request, its period, windows and shards) → `fetch/` (shards paged into parts) →
 * `snapshot/` (parts merged in order, deduplicated, into the NDJSON snapshot) → `report/`
 * (normalisation, the report model, writers, `renderReports`) → `publish/` (`publishReports`:
 * one set of a sink, the manifest last). `runExport` runs them all; a caller that runs the
 * stages in separate processes (the Lambda workers) calls `planExport`, `fetchShards`,
 * `assembleExport`, `renderReports` and `publishReports` the same way.
 */
export { abortableClient, abortableIterable, type ExportServiceClient, servedDemoData } from './client.ts';
export { RunAbortedError } from './errors.ts';
export * from './fetch/index.ts';
export * from './plan/index.ts';
export * from './publish/index.ts';
export * from './report/index.ts';
export {
  type AssembleDeps,
  type AssembledExport,
  assembleExport,
  EXPORT_DEFAULTS,
  type ExportDeps,
  type ExportProgress,
  type ExportResult,
  GENERATOR,
  newRunId,
  openRunScratch,
  publishListeners,
  runExport,
  runPrefix,
} from './run.ts';
export * from './snapshot/index.ts';
