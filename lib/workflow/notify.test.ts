import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { mockClient } from 'aws-sdk-client-mock';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../jobs/index.ts';
import { createSnsNotifier, noticeOf, setPageUrl } from './notify.ts';

const job = (overrides: Partial<JobRecord> = {}): JobRecord => ({
  jobId: '0123456789abcdef0123456789abcdef',
  profile: 'acme',
  request: {
    profile: 'acme',
    period: '2025-10',
    timeZone: 'Europe/Berlin',
    reports: ['transactions'],
    formats: ['csv'],
    filters: {},
    window: 'month',
    csv: { delimiter: ',', decimalSeparator: '.' },
  },
  state: 'succeeded',
  source: 'schedule',
  idempotencyKey: 'schedule:acme:2025-10',
  createdAt: '2025-11-01T00:30:00.000Z',
  updatedAt: '2025-11-01T00:34:00.000Z',
  result: {
    runId: 'r',
    prefix: 'reports/acme/2025-10/r',
    files: [{ name: 'a.csv', key: 'reports/acme/2025-10/r/a.csv', bytes: 1, sha256: 'x' }],
  },
  ...overrides,
});

describe('notices of ended exports', () => {
  it('links a finished set to its page in the portal, never to a file', () => {
    const notice = noticeOf(job(), 'https://reports.example.com/portal/');
    expect(notice.subject).toBe('pbs-export: acme 2025-10 is ready');
    expect(notice.message).toContain(
      'https://reports.example.com/portal/clients/acme#set-0123456789abcdef0123456789abcdef',
    );
    expect(notice.message).toContain('The monthly export of acme for 2025-10 is ready.');
    expect(notice.message).not.toMatch(/reports\/acme\/2025-10|X-Amz|\.csv/);
    expect(notice.attributes).toEqual({ profile: 'acme', state: 'succeeded' });
  });

  it('says why an export failed', () => {
    const failed = job({ state: 'failed', source: 'api', reason: 'ServiceError: the service answered 503' });
    const notice = noticeOf(failed, 'https://r.example.com/portal');
    expect(notice.subject).toBe('pbs-export: acme 2025-10 failed');
    expect(notice.message).toContain('The export requested on demand of acme for 2025-10 failed.');
    expect(notice.message).toContain('Reason: ServiceError: the service answered 503');
    expect(setPageUrl('https://r.example.com/portal', failed)).toBe(
      'https://r.example.com/portal/clients/acme#job-0123456789abcdef0123456789abcdef',
    );
  });

  it('publishes with the profile as a message attribute, for subscriptions filtered by profile', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).resolves({ MessageId: 'm1' });
    const topicArn = 'arn:aws:sns:eu-central-1:123456789012:ready';
    await createSnsNotifier({
      client: new SNSClient({}),
      topicArn,
      portalUrl: 'https://r.example.com/portal',
    })(job());
    const [call] = sns.commandCalls(PublishCommand);
    expect(call?.args[0].input).toMatchObject({
      TopicArn: topicArn,
      Subject: 'pbs-export: acme 2025-10 is ready',
      MessageAttributes: {
        profile: { DataType: 'String', StringValue: 'acme' },
        state: { DataType: 'String', StringValue: 'succeeded' },
      },
    });
    sns.restore();
  });

  it('never throws: a notice that cannot be published is told to onError, the export stands', async () => {
    const sns = mockClient(SNSClient);
    sns.on(PublishCommand).rejects(new Error('throttled'));
    const errors: unknown[] = [];
    const notify = createSnsNotifier({
      client: new SNSClient({}),
      topicArn: 'arn:aws:sns:eu-central-1:123456789012:ready',
      portalUrl: 'https://r.example.com/portal',
      onError: (error) => errors.push(error),
    });
    await expect(notify(job())).resolves.toBeUndefined();
    expect(errors.map((error) => (error as Error).message)).toEqual(['throttled']);
    sns.restore();
  });
});
