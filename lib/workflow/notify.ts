/**
 * "Your report set is ready" (or failed): when an export ends, the profile's subscribers are told
 * on an SNS topic (one per deployment). Each message carries a `profile` message attribute, so a
 * subscription's filter policy (`{"profile": ["acme"]}`) gives each person their clients' news
 * only, and links to the set's page in the portal, where a fresh download link is made on
 * click: never a presigned link, which would outlive the message's purpose and leak if forwarded.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { periodLabel } from '../export/index.ts';
import type { JobRecord } from '../jobs/index.ts';

/** Tells subscribers that a job ended; never throws (a lost notice must not fail an export). */
export type Notifier = (job: JobRecord) => Promise<void>;

/** What one notice says. */
export interface Notice {
  subject: string;
  message: string;
  /** SNS message attributes (String): `profile` and `state`, for filter policies. */
  attributes: { profile: string; state: string };
}

/** The page of a job's set in the portal (`{portalUrl}/clients/{profile}#set-{jobId}`). */
export function setPageUrl(portalUrl: string, job: Pick<JobRecord, 'profile' | 'jobId' | 'state'>): string {
  const anchor = job.state === 'succeeded' ? `set-${job.jobId}` : `job-${job.jobId}`;
  return `${portalUrl.replace(/\/+$/, '')}/clients/${encodeURIComponent(job.profile)}#${anchor}`;
}

/** The notice of an ended job, in words, with the link to its page. */
export function noticeOf(job: JobRecord, portalUrl: string): Notice {
  const period = periodLabel(job.request.period);
  const how = job.source === 'schedule' ? 'monthly export' : 'export requested on demand';
  const link = setPageUrl(portalUrl, job);
  const succeeded = job.state === 'succeeded';
  const lines = succeeded
    ? [
        `The ${how} of ${job.profile} for ${period} is ready.`,
        '',
        `Open its report set in the portal: ${link}`,
        'Sign in there to download the files (each Download makes a fresh link).',
      ]
    : [
        `The ${how} of ${job.profile} for ${period} failed.`,
        '',
        `Reason: ${job.reason ?? 'no reason was recorded'}`,
        `See it in the portal, or request it again: ${link}`,
      ];
  return {
    subject: `pbs-export: ${job.profile} ${period} ${succeeded ? 'is ready' : 'failed'}`.slice(0, 100),
    message: lines.join('\n'),
    attributes: { profile: job.profile, state: job.state },
  };
}

/** Options of {@link createSnsNotifier}. */
export interface SnsNotifierOptions {
  client: Pick<SNSClient, 'send'>;
  topicArn: string;
  /** Where people reach the portal, e.g. `https://reports.example.com/portal`. */
  portalUrl: string;
  /** Told when a notice could not be published (logged by the caller; the export stands). */
  onError?: (error: unknown, job: JobRecord) => void;
}

/** Publishes `notice` on the topic, its attributes as String message attributes (filter policies). */
export async function publishNotice(
  client: Pick<SNSClient, 'send'>,
  topicArn: string,
  notice: Notice,
): Promise<void> {
  await client.send(
    new PublishCommand({
      TopicArn: topicArn,
      Subject: notice.subject,
      Message: notice.message,
      MessageAttributes: {
        profile: { DataType: 'String', StringValue: notice.attributes.profile },
        state: { DataType: 'String', StringValue: notice.attributes.state },
      },
    }),
  );
}

/** A notifier that publishes each notice on the deployment's topic. */
export function createSnsNotifier(options: SnsNotifierOptions): Notifier {
  return async (job) => {
    try {
      await publishNotice(options.client, options.topicArn, noticeOf(job, options.portalUrl));
    } catch (error) {
      options.onError?.(error, job);
    }
  };
}
