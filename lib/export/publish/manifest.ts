import type { StoredObject } from '../../storage/sink.ts';
import type { SnapshotHeader } from '../snapshot/snapshot.ts';

export const MANIFEST_FORMAT = 'pbs-export/manifest@1';
export const MANIFEST_NAME = 'manifest.json';
/** The banner of a run on the simulator's data: in the manifest, the Read me, the About sheet and on every printed page. */
export const DEMO_BANNER = 'DEMO DATA, not a real portfolio';

/** A published file as the manifest lists it. */
export interface ManifestFile extends StoredObject {
  /** Data rows written, for report files. */
  rows?: number;
}

/**
 * The record that makes a run reproducible and marks it finished: written last, so a report
 * set without a manifest is not finished. Holds no credential of any kind.
 */
export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  generator: { name: string; version: string };
  runId: string;
  createdAt: string;
  completedAt: string;
  request: unknown;
  period: { label: string; start: string; end: string; timeZone: string };
  apiBase: string;
  /** On the simulator's data: `true`, with {@link DEMO_BANNER} as `notice`. Absent for a real service. */
  demo?: true;
  notice?: typeof DEMO_BANNER;
  windows: SnapshotHeader['windows'];
  shards: SnapshotHeader['shards'];
  counts: Record<string, number>;
  /** Report totals as exact decimal strings, e.g. `totalValue`. */
  totals?: Record<string, string>;
  /** Settings of the gains reports, when they were asked for. */
  gains?: {
    method: string;
    pooling: string;
    taxYearStart: string;
    longTermYears: number;
    feeTreatment: string;
    timeZone: string;
  };
  files: ManifestFile[];
}

/**
 * The service base URL as it may be recorded: without user info, query or fragment, so a URL
 * that carried credentials never reaches a manifest, a log or an error.
 */
export function publicApiBase(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.toString().replace(/\/$/, '');
  } catch {
    return '(invalid URL)';
  }
}
