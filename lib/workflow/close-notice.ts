/**
 * "Changed after close": the notice a profile's subscribers get on the deployment's topic when the
 * service changed a closed period. Like the "ready" notice it carries the `profile` attribute (the
 * subscriptions' filter policies) and links to the portal, never to a file.
 */
import type { SNSClient } from '@aws-sdk/client-sns';
import type { ChangedAfterCloseNotice } from '../close/index.ts';
import { type Notice, publishNotice } from './notify.ts';

/** The notice in words, with the link to the profile's closed periods in the portal. */
export function closeNoticeOf(notice: ChangedAfterCloseNotice, portalUrl: string): Notice {
  const link = `${portalUrl.replace(/\/+$/, '')}/clients/${encodeURIComponent(notice.profile)}#closed-periods`;
  return {
    subject: `pbs-export: ${notice.profile} ${notice.period} changed after close`.slice(0, 100),
    message: [
      notice.summary,
      '',
      `The closed set stays as delivered; the restatement (what changed and its effect on every total) is in the portal: ${link}`,
    ].join('\n'),
    attributes: { profile: notice.profile, state: 'changed-after-close' },
  };
}

/** Publishes each "changed after close" notice on the topic; never throws (`onError` is told). */
export function createSnsCloseNotifier(options: {
  client: Pick<SNSClient, 'send'>;
  topicArn: string;
  portalUrl: string;
  onError?: (error: unknown, notice: ChangedAfterCloseNotice) => void;
}): (notice: ChangedAfterCloseNotice) => Promise<void> {
  return async (changed) => {
    try {
      await publishNotice(options.client, options.topicArn, closeNoticeOf(changed, options.portalUrl));
    } catch (error) {
      options.onError?.(error, changed);
    }
  };
}
