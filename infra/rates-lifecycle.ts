import { Duration } from 'aws-cdk-lib';
import * as s3 from 'aws-cdk-lib/aws-s3';

/**
 * Days after which a kept rates file moves to Glacier Instant Retrieval (it never expires). 90:
 * the storage class's least duration, and by then the runs read newer versions of the ECB's
 * history.
 */
export const RATES_ARCHIVE_DAYS = 90;

/** Least size of a rates file that moves: HMRC's monthly files (a few kB) stay where they are. */
export const RATES_ARCHIVE_MIN_BYTES = 128 * 1024;

/**
 * The reports bucket's rule for the kept rates files (`rates/{source}/{sha256}/{name}`,
 * lib/fx-store).
 *
 * - **No expiry.** A set's manifest names the exact rates files it was converted with; rebuilding
 *   or restating the set (and a re-run naming them, `gains.rates.files`) needs those bytes.
 * - **Old files to Glacier Instant Retrieval after {@link RATES_ARCHIVE_DAYS}.** Runs read the
 *   newest file of each name; the daily fetch keeps a new version of the ECB's history (about
 *   0.6 MB) each publication day, so older versions are read only to rebuild old sets. That class
 *   stores for about a sixth of the price and is still read at once (no restore), so a rebuild
 *   works as before. Files under {@link RATES_ARCHIVE_MIN_BYTES} (HMRC's months) stay: moving
 *   them would cost more in requests than it saves.
 * - **Noncurrent versions** (a file written again with the same bytes, or deleted by hand) follow
 *   the bucket's `expire-noncurrent-versions` rule: the days it keeps them are the time to undo
 *   a deletion.
 */
export function ratesLifecycleRule(): s3.LifecycleRule {
  return {
    id: 'archive-old-rates',
    prefix: 'rates/',
    objectSizeGreaterThan: RATES_ARCHIVE_MIN_BYTES,
    transitions: [
      {
        storageClass: s3.StorageClass.GLACIER_INSTANT_RETRIEVAL,
        transitionAfter: Duration.days(RATES_ARCHIVE_DAYS),
      },
    ],
  };
}
