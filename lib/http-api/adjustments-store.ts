/**
 * What the HTTP API needs of a profile's adjustments documents is the store of lib/adjustments
 * (every version kept, never rewritten in place, a write only on the version the writer read):
 * the routes use it as it is, so the deployment's store (S3 with versions, built where the API's
 * other dependencies are) and the file store of the CLI are the same code the export reads with.
 */
export type { AdjustmentsStore } from '../adjustments/index.ts';
