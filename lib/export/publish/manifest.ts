import type { PreviousSet, SignatureReference } from '../../proof/index.ts';
import type { StoredObject } from '../../storage/index.ts';
import type { ReportSetDescription } from '../report/index.ts';

export const MANIFEST_FORMAT = 'pbs-export/manifest@1';
export const MANIFEST_NAME = 'manifest.json';

/** A published file as the manifest lists it. */
export interface ManifestFile extends StoredObject {
  /** Data rows written, for report files. */
  rows?: number;
}

/**
 * The record that makes a run reproducible and marks it finished: written last, so a report
 * set without a manifest is not finished. Holds no credential of any kind.
 */
export interface Manifest extends ReportSetDescription {
  format: typeof MANIFEST_FORMAT;
  completedAt: string;
  files: ManifestFile[];
  /**
   * The set of the same profile this one continues (README: Proof), or null when none ends where
   * this one begins. Absent when the run was not asked to chain (an export to nowhere shared).
   */
  previous?: PreviousSet | null;
  /** Present when the manifest is signed: `manifest.sig` beside it, and where the public key is. */
  signature?: SignatureReference;
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
