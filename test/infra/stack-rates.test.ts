/**
 * The daily rates fetch in the stack: its function, the schedule that invokes it, what it may
 * touch in the bucket (rates/ only), and who reads what it keeps.
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PbsExportStack } from '../../infra/stack.ts';
import { ENV } from '../../lib/lambda/index.ts';
import { functionLogicalId, logicalIdOf, synthesize, TEST_CONFIG } from './support.ts';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: unknown;
}
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

let stack: PbsExportStack;
let resources: Resources;
let template: ReturnType<typeof synthesize>['template'];
beforeAll(() => {
  const synthesized = synthesize();
  stack = synthesized.stack;
  template = synthesized.template;
  resources = synthesized.template.toJSON().Resources as Resources;
});

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The environment variables of the resource `id` of `json`. */
function variablesOf(json: Resources, id: string): Record<string, unknown> {
  const environment = json[id]?.Properties.Environment as { Variables: Record<string, unknown> } | undefined;
  return environment?.Variables ?? {};
}

/** Every statement of the policies attached to the role with logical id `roleId`. */
function statementsOf(roleId: string): Statement[] {
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

function ratesSchedule() {
  const fnId = functionLogicalId(stack, 'ratesFetch');
  const schedules = Object.values(resources).filter(
    (resource) =>
      resource.Type === 'AWS::Scheduler::Schedule' &&
      JSON.stringify((resource.Properties.Target as { Arn: unknown }).Arn).includes(fnId),
  );
  expect(schedules).toHaveLength(1);
  return schedules[0]?.Properties as {
    ScheduleExpression: string;
    ScheduleExpressionTimezone: string;
    State?: string;
    Target: { Arn: unknown; RoleArn: unknown; DeadLetterConfig: { Arn: unknown } };
  };
}

describe('PbsExportStack rates fetch', () => {
  it("deploys functions/rates-fetch.ts with the owners' published URLs by default", () => {
    const properties = resources[functionLogicalId(stack, 'ratesFetch')]?.Properties ?? {};
    expect(properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'] });
    expect(variablesOf(resources, functionLogicalId(stack, 'ratesFetch'))).toMatchObject({
      [ENV.bucket]: { Ref: logicalIdOf(stack, stack.bucket) },
      [ENV.ratesEcbUrl]: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip',
      [ENV.ratesHmrcUrl]:
        'https://www.trade-tariff.service.gov.uk/api/v2/exchange_rates/files/monthly_xml_{month}.xml',
    });
  });

  it('invokes it every day after the ECB publishes, failed deliveries into the schedules dead-letter queue', () => {
    const schedule = ratesSchedule();
    expect(schedule).toMatchObject({
      ScheduleExpression: 'cron(30 17 * * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
      Target: { Arn: { 'Fn::GetAtt': [functionLogicalId(stack, 'ratesFetch'), 'Arn'] } },
    });
    expect(schedule.Target.DeadLetterConfig.Arn).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack, stack.scheduleDeadLetterQueue), 'Arn'],
    });
  });

  it('takes the URLs and the schedule from the config', () => {
    const custom = synthesize({
      ...TEST_CONFIG,
      rates: {
        ecbUrl: 'https://mirror.example.com/eurofxref-hist.zip',
        hmrcUrl: 'https://mirror.example.com/hmrc/{month}.xml',
        scheduleCron: 'cron(0 6 * * ? *)',
        scheduleTimeZone: 'UTC',
      },
    });
    const id = functionLogicalId(custom.stack, 'ratesFetch');
    const json = custom.template.toJSON().Resources as Resources;
    expect(variablesOf(json, id)).toMatchObject({
      [ENV.ratesEcbUrl]: 'https://mirror.example.com/eurofxref-hist.zip',
      [ENV.ratesHmrcUrl]: 'https://mirror.example.com/hmrc/{month}.xml',
    });
    expect(
      Object.values(json).filter(
        (resource) =>
          resource.Type === 'AWS::Scheduler::Schedule' &&
          resource.Properties.ScheduleExpression === 'cron(0 6 * * ? *)',
      ),
    ).toHaveLength(1);
  });

  it('lets the function read and write objects under rates/ only, and list only that prefix', () => {
    const roleId = logicalIdOf(stack, stack.functions.ratesFetch.role);
    const s3 = statementsOf(roleId).filter((statement) =>
      asArray(statement.Action).some((action) => action.startsWith('s3:')),
    );
    const bucket = logicalIdOf(stack, stack.bucket);
    const underRates = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucket, 'Arn'] }, '/rates/*']] };
    expect(s3).toEqual([
      { Effect: 'Allow', Action: ['s3:GetObject', 's3:PutObject'], Resource: underRates },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': [bucket, 'Arn'] },
        Condition: { StringLike: { 's3:prefix': ['rates/*'] } },
      },
    ]);
    expect(
      statementsOf(roleId).some((statement) => JSON.stringify(statement).includes('secretsmanager')),
    ).toBe(false);
  });

  it("lets the schedule's role invoke that function only", () => {
    const roleArn = ratesSchedule().Target.RoleArn as { 'Fn::GetAtt': [string, string] };
    const invoke = statementsOf(roleArn['Fn::GetAtt'][0]).filter((statement) =>
      asArray(statement.Action).includes('lambda:InvokeFunction'),
    );
    const fnId = functionLogicalId(stack, 'ratesFetch');
    expect(invoke).toHaveLength(1);
    expect(asArray(invoke[0]?.Resource)).toEqual([
      { 'Fn::GetAtt': [fnId, 'Arn'] },
      { 'Fn::Join': ['', [{ 'Fn::GetAtt': [fnId, 'Arn'] }, ':*']] },
    ]);
  });

  it('alarms when the fetch fails', () => {
    const alarms = Object.values(resources).filter(
      (resource) =>
        resource.Type === 'AWS::CloudWatch::Alarm' &&
        resource.Properties.MetricName === 'Errors' &&
        JSON.stringify(resource.Properties.Dimensions).includes(functionLogicalId(stack, 'ratesFetch')),
    );
    expect(alarms).toHaveLength(1);
  });
});

describe('PbsExportStack kept rates in the bucket', () => {
  /** The reports bucket's lifecycle rules. */
  function rules(): { Id?: string; Prefix?: string; ExpirationInDays?: number; Status: string }[] {
    const bucket = resources[logicalIdOf(stack, stack.bucket)]?.Properties as {
      LifecycleConfiguration: {
        Rules: { Id?: string; Prefix?: string; ExpirationInDays?: number; Status: string }[];
      };
    };
    return bucket.LifecycleConfiguration.Rules;
  }

  it('moves kept rates files over 128 KiB to Glacier Instant Retrieval after 90 days', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      LifecycleConfiguration: {
        Rules: Match.arrayWith([
          {
            Id: 'archive-old-rates',
            Prefix: 'rates/',
            ObjectSizeGreaterThan: 131072,
            Transitions: [{ StorageClass: 'GLACIER_IR', TransitionInDays: 90 }],
            Status: 'Enabled',
          },
        ]),
      },
    });
  });

  it('expires no kept rates file: no rule over rates/ has an expiry of current objects', () => {
    const over = rules().filter((rule) => rule.Prefix === undefined || 'rates/'.startsWith(rule.Prefix));

    expect(over.map((rule) => rule.Id)).toContain('archive-old-rates');
    expect(over.filter((rule) => rule.ExpirationInDays !== undefined)).toEqual([]);
  });
});
