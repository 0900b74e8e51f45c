/**
 * Stage 5, publish: a run's rendered files stored as one set of a sink, the manifest last, and
 * what was stored (names, sizes, SHA-256) handed back.
 */
export {
  MANIFEST_FORMAT,
  MANIFEST_NAME,
  type Manifest,
  type ManifestFile,
  publicApiBase,
} from './manifest.ts';
export { type PublishedReports, type PublishTarget, publishReports } from './publish.ts';
