/** What the workers need of the Portfolio Balance Service: a client per profile (built by `lib/lambda`). */
import type { ExportServiceClient } from '../export/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';

/** What the workers need to export one profile. */
export interface ProfileService {
  client: ExportServiceClient;
  fields: TransactionFieldMap;
  /** Base URL as it may be recorded (no credentials). */
  apiBase: string;
}

/** Builds the service of a registered profile; throws `UnknownProfileError` or `SecretError`. */
export type ServiceFactory = (profile: string) => Promise<ProfileService>;
