/**
 * The stages after the fetch of a run that publishes (assemble, render, publish), as
 * `runPipeline` takes them (`PipelineStages.publishing`): imported by the callers that publish (the
 * CLI, the Lambda finish), so that the tasks that stop before them bundle none of the renderer.
 */
import { assembleExport } from './assemble.ts';
import type { PublishingStages } from './pipeline.ts';
import { publishReports } from './publish/index.ts';
import { renderReports } from './report/index.ts';

/** Assemble (`assembleExport`), render (`renderReports`), publish (`publishReports`). */
export const PUBLISHING: PublishingStages = {
  assemble: assembleExport,
  render: renderReports,
  publish: publishReports,
};
