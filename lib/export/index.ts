/**
 * The export pipeline, stage by stage, each a folder with one face:
 * `plan/` (the request, its period, windows and shards) → `fetch/` (shards paged into parts) →
 * `snapshot/` (parts merged in order, deduplicated, into the NDJSON snapshot) → `report/`
 * (normalisation, the report model, writers, `renderReports`) → `publish/` (`publishReports`:
 * one set of a sink, the manifest last). `runPipeline` (`pipeline.ts`, docs/pipeline.md) runs
 * them all for every caller, from the stage sources it is given; `runExport` is the CLI's. The
 * Lambda plan and fetch-shard tasks run it through their own stages (`through: 'plan' | 'fetch'`)
 * and store what they made (a fetch-shard task also its window's piece: `window-piece.ts`) for
 * the finish, which runs it from there (joining the pieces: `join-pieces.ts`).
 */

export {
  type AssembleDeps,
  type AssembledExport,
  type AssembleProgress,
  assembleExport,
} from './assemble.ts';
export { abortableClient, abortableIterable, type ExportServiceClient, servedDemoData } from './client.ts';
export { RunAbortedError } from './errors.ts';
export * from './fetch/index.ts';
export {
  describePiece,
  type JoinDeps,
  joinWindowPieces,
  type PieceDescription,
  type StoredPiece,
} from './join-pieces.ts';
export { pieceAsPart } from './piece-part.ts';
export {
  EXPORT_DEFAULTS,
  type ExportProgress,
  type ExportResult,
  type FetchContext,
  type FetchedShards,
  type FetchNowSettings,
  type FetchSettings,
  type FetchStage,
  type FetchStages,
  fetchNow,
  fetchOptions,
  GENERATOR,
  givenInputs,
  type InputsStage,
  type JoinStage,
  newRunId,
  openRunScratch,
  type PipelineOptions,
  type PipelineStages,
  type PlannedRun,
  type PlanStage,
  type PlanStages,
  type PublishingStages,
  planNow,
  plannedBefore,
  publishListeners,
  type ResolvedInputs,
  runPipeline,
  runPrefix,
  type ServiceSource,
  type SnapshotSource,
} from './pipeline.ts';
export * from './plan/index.ts';
export * from './publish/index.ts';
export { PUBLISHING } from './publishing.ts';
export type {
  ClosedPrevious,
  OpeningRecord,
  OpeningStatus,
  ReconciliationRecord,
} from './reconcile/index.ts';
export * from './report/index.ts';
export { countWords, totalWords } from './report/words.ts';
export { type ExportDeps, runExport } from './run.ts';
export * from './snapshot/index.ts';
export { joinsWindows, makeWindowPiece, type PieceDeps, type WindowPiece } from './window-piece.ts';
