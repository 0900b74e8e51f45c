import type { LoadedAdjustments } from '../adjustments/index.ts';
import type { RateTable } from '../fx/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';
import type { Sink } from '../storage/index.ts';
import type { ExportServiceClient } from './client.ts';
import {
  type ExportResult,
  type FetchSettings,
  fetchNow,
  givenInputs,
  type PipelineOptions,
  type PipelineStages,
  planNow,
  runPipeline,
} from './pipeline.ts';
import type { ExportRequest } from './plan/index.ts';
import { PUBLISHING } from './publishing.ts';

/** Everything `runExport` uses besides the request; built once per process by the caller. */
export interface ExportDeps extends PipelineOptions, FetchSettings {
  client: ExportServiceClient;
  sink: Sink;
  /** Where the service puts each transaction field (the configured shape's field map). */
  fields: TransactionFieldMap;
  /** Base URL of the service, recorded in the manifest without any credential. */
  apiBase: string;
  /**
   * The service is the simulator: its data is demo data, not a real portfolio. The snapshot, the
   * manifest, the Read me, the About sheet and every printed page say so. Default false.
   */
  demo?: boolean;
  /** The rates files' table when the request asks for `gains.rates` (the trigger reads the files). */
  rates?: RateTable;
  /**
   * The preparer's adjustments for the gains figures (read and validated by the trigger). The
   * snapshot stays what the service sent; the manifest records their version and SHA-256.
   */
  adjustments?: LoadedAdjustments;
  /** The set this run continues, looked up in the destination (README: Proof); absent: no chain recorded. */
  previous?: PipelineStages['previous'];
  /** The closed period before, for the opening check (lib/close); absent: not checked. */
  closedPrevious?: PipelineStages['closedPrevious'];
}

/**
 * Runs one export in this process: the pipeline (`runPipeline`) planning now, fetching every shard
 * in full while windows are assembled, with the rates and adjustments the caller read.
 */
export function runExport(request: ExportRequest, deps: ExportDeps): Promise<ExportResult> {
  return runPipeline(
    request,
    {
      inputs: givenInputs(deps),
      source: {
        kind: 'service',
        client: deps.client,
        fields: deps.fields,
        apiBase: deps.apiBase,
        ...(deps.demo !== undefined ? { demo: deps.demo } : {}),
        plan: planNow(deps.now),
        fetch: fetchNow(deps),
      },
      sink: deps.sink,
      ...(deps.previous ? { previous: deps.previous } : {}),
      ...(deps.closedPrevious ? { closedPrevious: deps.closedPrevious } : {}),
      publishing: PUBLISHING,
    },
    deps,
  );
}
