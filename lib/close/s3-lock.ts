/**
 * S3 Object Lock for closed sets: at close time each object of the set gets a retention in
 * governance mode until `days` from the close. The stack's bucket has Object Lock enabled without
 * a default retention (the work, jobs and staging areas must still expire), so only closed sets
 * are locked; the project's roles are never granted `s3:BypassGovernanceRetention`, so no project
 * path can delete or overwrite a locked version (an administrator with that permission can, which
 * is what governance mode is for: a reopen that must replace a set is an administrator's act).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import type { CloseRecord } from './records.ts';

/** Default retention of a closed set: ten years, the longest bookkeeping retention of the rule sets (DE § 147 AO). */
export const DEFAULT_LOCK_DAYS = 3650;

/** Whether the bucket has Object Lock enabled (false when the store cannot tell, e.g. s3rver). */
export async function objectLockEnabled(client: S3Client, bucket: string): Promise<boolean> {
  const { GetObjectLockConfigurationCommand } = await loadS3Sdk();
  try {
    const answer = await client.send(new GetObjectLockConfigurationCommand({ Bucket: bucket }));
    return answer.ObjectLockConfiguration?.ObjectLockEnabled === 'Enabled';
  } catch {
    return false;
  }
}

/** The `lock` of `closePeriod` for a bucket: governance retention on every object of the closed set. */
export function governanceLock(options: {
  client: S3Client;
  bucket: string;
  prefix?: string;
  days?: number;
}) {
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  return async (record: CloseRecord, keys: string[]): Promise<void> => {
    const until = new Date(Date.parse(record.at) + (options.days ?? DEFAULT_LOCK_DAYS) * 86_400_000);
    const { PutObjectRetentionCommand } = await loadS3Sdk();
    for (const key of keys) {
      await options.client.send(
        new PutObjectRetentionCommand({
          Bucket: options.bucket,
          Key: prefix === '' ? key : `${prefix}/${key}`,
          Retention: { Mode: 'GOVERNANCE', RetainUntilDate: until },
        }),
      );
    }
  };
}
