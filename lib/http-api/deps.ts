/** What the API is built from (`createApi` in `app.ts`; the routes take the same). */
import type { S3Client } from '@aws-sdk/client-s3';
import type {
  ExecutionStarter,
  JobObserver,
  JobStore,
  MetricsSink,
  ProfileRegistry,
  ProfileSlots,
} from '../jobs/index.ts';
import type { PortalOptions } from '../portal/index.ts';
import type { AdjustmentsStore } from './adjustments-store.ts';

/** Everything the API uses; built once per process by the caller. */
export interface ApiDeps {
  registry: ProfileRegistry;
  jobs: JobStore;
  starter: ExecutionStarter;
  /** Client and bucket to presign download links with. */
  s3: S3Client;
  bucket: string;
  now: () => Date;
  /**
   * Where callers reach the API (`https://host[/base path]`): `statusUrl` and `Location` are
   * built from it, never from the request's `Host` or `X-Forwarded-Proto`.
   */
  publicBaseUrl: string;
  /** The per-key queues: new jobs join them, `GET` shows a queued job's position. */
  slots?: Pick<ProfileSlots, 'enqueue' | 'release' | 'position'>;
  /** Expiry of download links, 1 … 604 800 s. Default 3600. */
  linkExpirySeconds?: number;
  /**
   * JWT claim listing the profiles a caller may use (see `authorization.ts`). Unset: every caller
   * may use every registered profile.
   */
  profilesClaim?: string;
  /** The accountant portal's sign-in; with it the API serves the portal's pages at `/portal`. */
  portal?: PortalOptions;
  /**
   * The profiles' adjustments documents (`adjustments-route.ts`); default: the S3 store over
   * `s3` and `bucket` (the one the export reads them from).
   */
  adjustments?: AdjustmentsStore;
  metrics?: MetricsSink;
  onJob?: JobObserver;
  /** Told about unexpected failures (answered 500/503 without details). */
  onError?: (message: string, error: unknown) => void;
}
