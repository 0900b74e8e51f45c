import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Annotations, Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, type FunctionKey, type PbsExportStack } from '../../infra/stack.ts';
import {
  EXPORT_STATES,
  MONTHLY_STATES,
  PERMANENT_ERRORS,
  PROFILE_BUSY_ERROR,
} from '../../infra/state-machines.ts';
import { ValidationError } from '../../lib/errors.ts';
import { RequestValidationError, TransactionDataError } from '../../lib/export/index.ts';
import { JobNotFoundError, ProfileBusyError, UnknownProfileError } from '../../lib/jobs/index.ts';
import { ConfigError, ENV, SecretError } from '../../lib/lambda/index.ts';
import { EXECUTION_END_STATUSES, JobStateError } from '../../lib/workflow/index.ts';
import {
  functionLogicalId,
  logicalIdOf,
  type SynthesizedApp,
  secretArn,
  stateMachineDefinition,
  synthesize,
  TEST_CONFIG,
} from './support.ts';

interface Statement {
  Effect: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, Record<string, unknown>>;
}

let synthesized: SynthesizedApp;
let stack: PbsExportStack;
let template: Template;
let resources: Record<string, { Type: string; Properties: Record<string, unknown> }>;

beforeAll(() => {
  synthesized = synthesize();
  ({ stack, template } = synthesized);
  resources = template.toJSON().Resources;
});

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function resourcesOfType(type: string) {
  return Object.entries(resources).filter(([, resource]) => resource.Type === type);
}

/** Every statement of every IAM policy and role in the template. */
function allStatements(): Statement[] {
  const statements: Statement[] = [];
  for (const [, policy] of resourcesOfType('AWS::IAM::Policy')) {
    statements.push(...(policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
  }
  for (const [, role] of resourcesOfType('AWS::IAM::Role')) {
    for (const inline of (role.Properties.Policies as { PolicyDocument: { Statement: Statement[] } }[]) ??
      []) {
      statements.push(...inline.PolicyDocument.Statement);
    }
  }
  return statements;
}

/** The statements of a function's role. */
function functionStatements(key: FunctionKey): Statement[] {
  const roleId = logicalIdOf(stack, stack.functions[key].role);
  return resourcesOfType('AWS::IAM::Policy')
    .filter(([, policy]) =>
      (policy.Properties.Roles as unknown[]).some((role) => JSON.stringify(role).includes(roleId)),
    )
    .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** `action → [prefix, …]` of a function's S3 object statements (`<bucket>/jobs/*` → `jobs/`). */
function s3ObjectAccess(key: FunctionKey): Record<string, string[]> {
  const access: Record<string, string[]> = {};
  for (const statement of functionStatements(key)) {
    for (const action of asArray(statement.Action)) {
      // Bucket-level actions (the listing, the close's look at the Object Lock setting) name no prefix.
      if (
        !action.startsWith('s3:') ||
        action === 's3:ListBucket' ||
        action === 's3:GetBucketObjectLockConfiguration'
      )
        continue;
      for (const resource of asArray(statement.Resource)) {
        const suffix = JSON.stringify(resource).match(/"\/([a-z_]+\/)\*"/)?.[1];
        if (suffix === undefined) throw new Error(`unexpected S3 resource ${JSON.stringify(resource)}`);
        access[action] = [...(access[action] ?? []), suffix].sort();
      }
    }
  }
  return access;
}

function functionProperties(key: FunctionKey): Record<string, unknown> {
  const properties = resources[functionLogicalId(stack, key)]?.Properties;
  if (properties === undefined) throw new Error(`no function ${key}`);
  return properties;
}

function environmentOf(key: FunctionKey): Record<string, unknown> {
  return (functionProperties(key).Environment as { Variables: Record<string, unknown> }).Variables;
}

function definitionOf(machine: 'export' | 'monthly') {
  const sm = machine === 'export' ? stack.exportStateMachine : stack.monthlyStateMachine;
  return stateMachineDefinition(template, logicalIdOf(stack, sm), (id) => `arn:test:${id}`) as {
    StartAt: string;
    States: Record<string, Record<string, unknown>>;
  };
}

const FUNCTION_KEYS = Object.keys(FUNCTIONS) as FunctionKey[];

describe('PbsExportStack reports bucket', () => {
  const bucketProperties = () => resources[logicalIdOf(stack, stack.bucket)]?.Properties ?? {};

  it('returns server-side encryption by default', () => {
    expect(bucketProperties().BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
    });
  });

  it('blocks every kind of public access', () => {
    expect(bucketProperties().PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
  });

  it('denies every request not made over TLS', () => {
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: logicalIdOf(stack, stack.bucket) },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      },
    });
  });

  it('keeps versions of objects', () => {
    expect(bucketProperties().VersioningConfiguration).toEqual({ Status: 'Enabled' });
  });

  it('aborts incomplete multipart uploads after one day', () => {
    expect(bucketProperties().LifecycleConfiguration).toMatchObject({
      Rules: expect.arrayContaining([
        expect.objectContaining({
          AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
          Status: 'Enabled',
        }),
      ]),
    });
  });

  it('expires work files and job records after the configured days', () => {
    expect(bucketProperties().LifecycleConfiguration).toMatchObject({
      Rules: expect.arrayContaining([
        expect.objectContaining({ Prefix: 'work/', ExpirationInDays: 5, Status: 'Enabled' }),
        expect.objectContaining({ Prefix: 'jobs/', ExpirationInDays: 60, Status: 'Enabled' }),
      ]),
    });
  });

  it('expires what killed runs staged under _staging/ after a day, old versions included', () => {
    expect(bucketProperties().LifecycleConfiguration).toMatchObject({
      Rules: expect.arrayContaining([
        expect.objectContaining({
          Prefix: '_staging/',
          ExpirationInDays: 1,
          NoncurrentVersionExpiration: { NoncurrentDays: 1 },
          Status: 'Enabled',
        }),
      ]),
    });
  });

  it('expires the slot leases under locks/ after a day', () => {
    expect(bucketProperties().LifecycleConfiguration).toMatchObject({
      Rules: expect.arrayContaining([
        expect.objectContaining({ Prefix: 'locks/', ExpirationInDays: 1, Status: 'Enabled' }),
      ]),
    });
  });

  it('logs server access into the access log bucket', () => {
    expect(bucketProperties().LoggingConfiguration).toMatchObject({
      DestinationBucketName: { Ref: expect.stringMatching(/^AccessLogs/) },
    });
  });
});

describe('PbsExportStack functions', () => {
  it('returns seven functions, one per entry', () => {
    expect(resourcesOfType('AWS::Lambda::Function')).toHaveLength(7);
  });

  it.each(FUNCTION_KEYS)('runs %s on Node.js 22, arm64, with active tracing', (key) => {
    expect(functionProperties(key)).toMatchObject({
      Runtime: 'nodejs22.x',
      Architectures: ['arm64'],
      TracingConfig: { Mode: 'Active' },
    });
  });

  it.each(FUNCTION_KEYS)('logs %s as JSON into its own log group with the configured retention', (key) => {
    const logGroupId = logicalIdOf(stack, stack.functions[key].logGroup);
    expect(functionProperties(key).LoggingConfig).toEqual({
      LogFormat: 'JSON',
      LogGroup: { Ref: logGroupId },
    });
    expect(resources[logGroupId]?.Properties.RetentionInDays).toBe(30);
  });

  it('gives every function the bucket, the registry, the service URL and the client settings', () => {
    for (const key of FUNCTION_KEYS) {
      expect(environmentOf(key)).toMatchObject({
        [ENV.bucket]: { Ref: logicalIdOf(stack, stack.bucket) },
        [ENV.baseUrl]: 'https://pbs.example.com/api',
        [ENV.requestsPerSecond]: '5',
        [ENV.secretMaxAgeSeconds]: '300',
        [ENV.linkExpirySeconds]: '3600',
        POWERTOOLS_SERVICE_NAME: 'pbs-export',
      });
    }
  });

  it('passes the profile registry as JSON with every registration', () => {
    expect(JSON.parse(environmentOf('plan')[ENV.profiles] as string)).toEqual({
      demo: { secretArn: secretArn('demo'), timeZone: 'UTC', monthly: true },
      acme: { secretArn: secretArn('acme'), timeZone: 'Europe/Berlin', monthly: true },
      empty: { secretArn: secretArn('empty'), timeZone: 'UTC', monthly: false },
    });
  });

  it("gives only the HTTP API function its public base URL, the API's own endpoint", () => {
    const withUrl = FUNCTION_KEYS.filter((key) => ENV.publicBaseUrl in environmentOf(key));
    expect(withUrl).toEqual(['httpApi']);
    expect(environmentOf('httpApi')[ENV.publicBaseUrl]).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack, stack.api.api), 'ApiEndpoint'],
    });
  });

  it('gives the HTTP API function the configured public base URL instead, when there is one', () => {
    const custom = synthesize({ ...TEST_CONFIG, publicBaseUrl: 'https://reports.example.com/pbs' });
    const id = functionLogicalId(custom.stack, 'httpApi');
    const variables = (
      custom.template.toJSON().Resources[id].Properties.Environment as { Variables: Record<string, unknown> }
    ).Variables;
    expect(variables[ENV.publicBaseUrl]).toBe('https://reports.example.com/pbs');
  });

  it('gives the export state machine ARN only to the functions that start exports', () => {
    const withArn = FUNCTION_KEYS.filter((key) => ENV.exportStateMachineArn in environmentOf(key));
    expect(withArn.sort()).toEqual(['httpApi', 'monthlyStart']);
    expect(environmentOf('httpApi')[ENV.exportStateMachineArn]).toEqual({
      Ref: logicalIdOf(stack, stack.exportStateMachine),
    });
  });
});

describe('PbsExportStack IAM', () => {
  it('grants no policy secretsmanager:*, s3:* or any action wildcard', () => {
    const actions = allStatements()
      .filter((statement) => statement.Effect === 'Allow')
      .flatMap((statement) => asArray(statement.Action));
    expect(actions.filter((action) => action === '*' || action.endsWith(':*'))).toEqual([]);
  });

  it('grants no S3 or Secrets Manager action on Resource "*"', () => {
    const offending = allStatements().filter(
      (statement) =>
        statement.Effect === 'Allow' &&
        asArray(statement.Action).some((action) => /^(s3|secretsmanager):/.test(action)) &&
        asArray(statement.Resource).includes('*'),
    );
    expect(offending).toEqual([]);
  });

  it('lets only the service-calling functions read secrets, exactly the registered ones', () => {
    const registered = ['demo', 'acme', 'empty'].map(secretArn).sort();
    for (const key of FUNCTION_KEYS) {
      const secrets = functionStatements(key).filter((statement) =>
        asArray(statement.Action).some((action) => action.startsWith('secretsmanager:')),
      );
      if (['plan', 'fetchShard', 'finish'].includes(key)) {
        expect(secrets.map((statement) => statement.Action)).toEqual(['secretsmanager:GetSecretValue']);
        expect(asArray(secrets[0]?.Resource).sort()).toEqual(registered);
      } else {
        expect(secrets).toEqual([]);
      }
    }
  });

  it('gives each function only its bucket prefixes', () => {
    const access = Object.fromEntries(FUNCTION_KEYS.map((key) => [key, s3ObjectAccess(key)]));
    expect(access).toEqual({
      httpApi: {
        's3:GetObject': [
          'adjustments/',
          'closes/',
          'jobs/',
          'locks/',
          'rates/',
          'reports/',
          'restatements/',
          'work/',
        ],
        // work/: the zip of "download all", uploaded in parts (lib/http-api/archive.ts);
        // closes/: the close records (lib/http-api/close-route.ts).
        's3:PutObject': ['adjustments/', 'closes/', 'jobs/', 'locks/', 'work/'],
        's3:AbortMultipartUpload': ['work/'],
        's3:DeleteObject': ['jobs/'],
        // reports/: a close locks its set in governance mode (lib/close/s3-lock.ts).
        's3:PutObjectRetention': ['reports/'],
      },
      plan: { 's3:GetObject': ['jobs/', 'locks/', 'rates/'], 's3:PutObject': ['jobs/', 'locks/', 'work/'] },
      fetchShard: {
        's3:GetObject': ['jobs/', 'locks/', 'work/'],
        's3:PutObject': ['locks/', 'work/'],
        's3:AbortMultipartUpload': ['work/'],
      },
      finish: {
        // closes/, reports/: no run publishes into a closed set; a scheduled run checks the
        // closed sets' snapshots and publishes restatements (lib/workflow/close-step.ts).
        's3:GetObject': [
          '_staging/',
          'adjustments/',
          'closes/',
          'jobs/',
          'locks/',
          'rates/',
          'reports/',
          'restatements/',
          'work/',
        ],
        's3:PutObject': ['_staging/', 'jobs/', 'locks/', 'reports/', 'restatements/', 'work/'],
        's3:AbortMultipartUpload': ['_staging/', 'reports/', 'restatements/'],
        's3:DeleteObject': ['_staging/', 'reports/', 'restatements/'],
      },
      fail: { 's3:GetObject': ['jobs/', 'locks/'], 's3:PutObject': ['jobs/', 'locks/'] },
      monthlyStart: {
        's3:GetObject': ['jobs/', 'locks/'],
        's3:PutObject': ['jobs/', 'locks/'],
        's3:DeleteObject': ['jobs/'],
      },
      ratesFetch: { 's3:GetObject': ['rates/'], 's3:PutObject': ['rates/'] },
    });
  });

  it('lists the bucket only under the prefixes a function reads', () => {
    const listing = functionStatements('fetchShard').filter(
      (statement) => statement.Action === 's3:ListBucket',
    );
    expect(listing).toEqual([
      expect.objectContaining({
        Condition: { StringLike: { 's3:prefix': ['jobs/*', 'work/*', 'locks/*'] } },
      }),
    ]);
  });

  it('lets only the HTTP API and monthly-start functions start executions, of the export machine', () => {
    const starters = FUNCTION_KEYS.filter((key) =>
      functionStatements(key).some((statement) =>
        asArray(statement.Action).includes('states:StartExecution'),
      ),
    );
    expect(starters.sort()).toEqual(['httpApi', 'monthlyStart']);
    expect(
      functionStatements('monthlyStart').find((statement) => statement.Action === 'states:StartExecution')
        ?.Resource,
    ).toEqual({ Ref: logicalIdOf(stack, stack.exportStateMachine) });
  });
});

describe('PbsExportStack export state machine', () => {
  it('returns Plan, then the Map over the shards, then Finish, inside one caught Parallel', () => {
    const definition = definitionOf('export');
    const flow = definition.States[EXPORT_STATES.flow] as {
      Type: string;
      Branches: { StartAt: string; States: Record<string, { Next?: string; End?: boolean }> }[];
    };
    const branch = flow.Branches[0];
    expect(definition.StartAt).toBe(EXPORT_STATES.flow);
    expect(flow.Type).toBe('Parallel');
    expect(branch?.StartAt).toBe(EXPORT_STATES.plan);
    expect(branch?.States[EXPORT_STATES.plan]?.Next).toBe(EXPORT_STATES.fetchShards);
    expect(branch?.States[EXPORT_STATES.fetchShards]?.Next).toBe(EXPORT_STATES.finish);
    expect(branch?.States[EXPORT_STATES.finish]?.End).toBe(true);
  });

  it('maps over $.shards with { jobId, shard } items at the configured concurrency', () => {
    const flow = definitionOf('export').States[EXPORT_STATES.flow] as {
      Branches: { States: Record<string, Record<string, unknown>> }[];
    };
    expect(flow.Branches[0]?.States[EXPORT_STATES.fetchShards]).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.shards',
      ItemSelector: { 'jobId.$': '$.jobId', 'shard.$': '$$.Map.Item.Value' },
      MaxConcurrency: 3,
      ResultPath: null,
    });
  });

  it('catches every error into MarkFailed with { jobId, error }, then fails', () => {
    const { States } = definitionOf('export');
    expect(States[EXPORT_STATES.flow]?.Catch).toEqual([
      { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: EXPORT_STATES.markFailed },
    ]);
    expect(States[EXPORT_STATES.markFailed]).toMatchObject({
      Type: 'Task',
      Parameters: { 'jobId.$': '$.jobId', 'error.$': '$.error' },
      Next: EXPORT_STATES.failed,
    });
    expect(States[EXPORT_STATES.failed]?.Type).toBe('Fail');
  });

  it('retries Lambda service errors and task failures with backoff, never the permanent errors', () => {
    const flow = definitionOf('export').States[EXPORT_STATES.flow] as {
      Branches: { States: Record<string, { Retry: Record<string, unknown>[] }> }[];
    };
    const retry = flow.Branches[0]?.States[EXPORT_STATES.finish]?.Retry ?? [];
    expect(retry[0]).toEqual({ ErrorEquals: expect.arrayContaining(['ValidationError']), MaxAttempts: 0 });
    expect(retry.slice(1)).toEqual([
      expect.objectContaining({
        ErrorEquals: expect.arrayContaining(['Lambda.ServiceException', 'Lambda.TooManyRequestsException']),
        BackoffRate: 2,
      }),
      expect.objectContaining({ ErrorEquals: ['States.TaskFailed'], BackoffRate: 3, MaxAttempts: 2 }),
    ]);
  });

  it('retries Plan on ProfileBusyError for hours, before the generic retriers', () => {
    const flow = definitionOf('export').States[EXPORT_STATES.flow] as {
      Branches: { States: Record<string, { Retry: Record<string, unknown>[] }> }[];
    };
    const retry = flow.Branches[0]?.States[EXPORT_STATES.plan]?.Retry ?? [];
    expect(retry.map((retrier) => retrier.ErrorEquals)).toEqual([
      expect.arrayContaining(['ValidationError']),
      ['ProfileBusyError'],
      expect.arrayContaining(['Lambda.ServiceException']),
      ['States.TaskFailed'],
    ]);
    expect(retry[1]).toEqual({
      ErrorEquals: ['ProfileBusyError'],
      IntervalSeconds: 20,
      MaxAttempts: 99,
      BackoffRate: 1.5,
      MaxDelaySeconds: 300,
      JitterStrategy: 'FULL',
    });
  });

  it('does not count ProfileBusyError as permanent, so a task that lost its slot is retried', () => {
    expect(PERMANENT_ERRORS).not.toContain('ProfileBusyError');
  });

  it('names error classes the handlers throw (Step Functions matches a failure by its class name)', () => {
    const permanent = [
      ValidationError,
      RequestValidationError,
      UnknownProfileError,
      JobNotFoundError,
      JobStateError,
      ConfigError,
      SecretError,
      TransactionDataError,
    ];

    expect(PERMANENT_ERRORS).toEqual(permanent.map((error) => error.name));
    expect(PROFILE_BUSY_ERROR).toBe(ProfileBusyError.name);
  });

  it('invokes each function by its ARN and takes its result as the output', () => {
    const flow = definitionOf('export').States[EXPORT_STATES.flow] as {
      Branches: { States: Record<string, { Resource?: string }> }[];
    };
    expect(flow.Branches[0]?.States[EXPORT_STATES.plan]?.Resource).toBe(
      `arn:test:${functionLogicalId(stack, 'plan')}`,
    );
  });

  it('logs every execution and traces it with X-Ray', () => {
    expect(resources[logicalIdOf(stack, stack.exportStateMachine)]?.Properties).toMatchObject({
      LoggingConfiguration: { Level: 'ALL' },
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe('PbsExportStack monthly state machine', () => {
  it('returns a Distributed Map over $.profiles with { profile, gains, scheduledTime } items', () => {
    const { StartAt, States } = definitionOf('monthly');
    expect(StartAt).toBe(MONTHLY_STATES.startAll);
    expect(States[MONTHLY_STATES.startAll]).toMatchObject({
      Type: 'Map',
      ItemsPath: '$.profiles',
      ItemSelector: {
        'profile.$': '$$.Map.Item.Value.profile',
        'gains.$': '$$.Map.Item.Value.gains',
        'journal.$': '$$.Map.Item.Value.journal',
        'scheduledTime.$': '$.scheduledTime',
      },
      ItemProcessor: { ProcessorConfig: { Mode: 'DISTRIBUTED' } },
    });
  });

  it('bounds the Distributed Map by the configured concurrency', () => {
    expect(definitionOf('monthly').States[MONTHLY_STATES.startAll]?.MaxConcurrency).toBe(7);
  });

  it('invokes monthly-start for each item, with retries', () => {
    const map = definitionOf('monthly').States[MONTHLY_STATES.startAll] as {
      ItemProcessor: { StartAt: string; States: Record<string, { Resource: string; Retry: unknown[] }> };
    };
    const start = map.ItemProcessor.States[MONTHLY_STATES.start];
    expect(map.ItemProcessor.StartAt).toBe(MONTHLY_STATES.start);
    expect(start?.Resource).toBe(`arn:test:${functionLogicalId(stack, 'monthlyStart')}`);
    expect(start?.Retry.length).toBeGreaterThan(1);
  });

  it('keeps each item until the export it started is no longer running', () => {
    const map = definitionOf('monthly').States[MONTHLY_STATES.startAll] as {
      ItemProcessor: { States: Record<string, Record<string, unknown>> };
    };
    const states = map.ItemProcessor.States;
    expect(states[MONTHLY_STATES.start]?.Next).toBe(MONTHLY_STATES.wait);
    expect(states[MONTHLY_STATES.wait]).toMatchObject({ Type: 'Wait', Next: MONTHLY_STATES.describe });
    expect(states[MONTHLY_STATES.describe]).toMatchObject({
      Resource: 'arn:aws:states:::aws-sdk:sfn:describeExecution',
      Parameters: {
        'ExecutionArn.$': `States.Format('arn:aws:states:eu-central-1:123456789012:execution:${logicalIdOf(stack, stack.exportStateMachine)}:{}', $.started.jobId)`,
      },
      Next: MONTHLY_STATES.running,
    });
    expect(states[MONTHLY_STATES.running]).toMatchObject({
      Choices: [{ Variable: '$.export.status', StringEquals: 'RUNNING', Next: MONTHLY_STATES.wait }],
      Default: MONTHLY_STATES.ended,
    });
  });

  it('lets the monthly state machine describe only executions of the export state machine', () => {
    const roleId = logicalIdOf(stack, stack.monthlyStateMachine.role);
    template.hasResourceProperties('AWS::IAM::Policy', {
      Roles: [{ Ref: roleId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          {
            Action: 'states:DescribeExecution',
            Effect: 'Allow',
            Resource: {
              'Fn::Join': [
                '',
                Match.arrayWith([
                  { 'Fn::GetAtt': [logicalIdOf(stack, stack.exportStateMachine), 'Name'] },
                  ':*',
                ]),
              ],
            },
          },
        ]),
      },
    });
  });

  it("discards the items' results instead of collecting them in the state", () => {
    expect(definitionOf('monthly').States[MONTHLY_STATES.startAll]?.ResultPath).toBeNull();
  });

  it('logs every execution and traces it with X-Ray', () => {
    expect(resources[logicalIdOf(stack, stack.monthlyStateMachine)]?.Properties).toMatchObject({
      LoggingConfiguration: { Level: 'ALL' },
      TracingConfiguration: { Enabled: true },
    });
  });
});

describe('PbsExportStack monthly schedule', () => {
  const schedule = () => {
    const [entry] = resourcesOfType('AWS::Scheduler::Schedule');
    if (entry === undefined) throw new Error('no schedule');
    return entry[1].Properties as {
      ScheduleExpression: string;
      ScheduleExpressionTimezone: string;
      Target: { Arn: unknown; Input: string; DeadLetterConfig: { Arn: unknown }; RetryPolicy: unknown };
    };
  };

  it('returns the configured cron in the configured time zone', () => {
    expect(schedule()).toMatchObject({
      ScheduleExpression: 'cron(15 2 1 * ? *)',
      ScheduleExpressionTimezone: 'Europe/Berlin',
    });
  });

  it('starts the monthly state machine with the scheduled time and the monthly profiles with their gains policies', () => {
    expect(schedule().Target.Arn).toEqual({ Ref: logicalIdOf(stack, stack.monthlyStateMachine) });
    const policies = {
      longTermYears: 1,
      transferToleranceHours: 24,
      sameInstantOrder: 'input',
      protocolMoves: 'taxable',
      transferInBasis: 'market-value',
      transferFee: 'dropped',
    };
    expect(JSON.parse(schedule().Target.Input)).toEqual({
      scheduledTime: '<aws.scheduler.scheduled-time>',
      profiles: [
        // acme's own policies (de: FIFO, wallet by wallet, calendar year) replace the deployment's.
        {
          profile: 'acme',
          gains: {
            ...policies,
            taxRules: 'de',
            method: 'fifo',
            pooling: 'account',
            taxYearStart: '01-01',
            transferFee: 'basis',
            currency: 'EUR',
          },
          journal: null,
        },
        // demo has the deployment's.
        {
          profile: 'demo',
          gains: {
            ...policies,
            taxRules: 'generic',
            method: 'fifo',
            pooling: 'universal',
            taxYearStart: '01-01',
            transferInBasis: 'zero',
            transferToleranceHours: 12,
            currency: null,
          },
          journal: null,
        },
      ],
    });
  });

  it('keeps the gains policies out of the profile registry the functions read', () => {
    const registries = resourcesOfType('AWS::Lambda::Function')
      .map(
        ([, fn]) =>
          (fn.Properties.Environment as { Variables?: Record<string, unknown> } | undefined)?.Variables,
      )
      .map((variables) => variables?.PBS_PROFILES)
      .filter((registry) => registry !== undefined);
    expect(registries.length).toBeGreaterThan(0);
    for (const registry of registries) expect(JSON.stringify(registry)).not.toContain('taxRules');
  });

  it('retries a failed start and then sends the event to the dead-letter queue', () => {
    expect(schedule().Target.RetryPolicy).toEqual({
      MaximumRetryAttempts: 10,
      MaximumEventAgeInSeconds: 21_600,
    });
    expect(schedule().Target.DeadLetterConfig.Arn).toEqual({
      'Fn::GetAtt': [logicalIdOf(stack, stack.scheduleDeadLetterQueue), 'Arn'],
    });
  });

  it('encrypts the dead-letter queue and refuses requests without TLS', () => {
    const queueId = logicalIdOf(stack, stack.scheduleDeadLetterQueue);
    expect(resources[queueId]?.Properties.SqsManagedSseEnabled).toBe(true);
    template.hasResourceProperties('AWS::SQS::QueuePolicy', {
      Queues: [{ Ref: queueId }],
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });
});

describe('PbsExportStack HTTP API', () => {
  // With the portal (the default), test/infra/stack-portal.test.ts.
  const withoutPortal = () =>
    Object.values(
      synthesize({ ...TEST_CONFIG, portal: { enabled: false } }).template.toJSON().Resources as Record<
        string,
        { Type: string; Properties: { RouteKey: string; AuthorizationType: string } }
      >,
    ).filter(
      (resource) =>
        resource.Type === 'AWS::ApiGatewayV2::Route' || resource.Type === 'AWS::ApiGatewayV2::Authorizer',
    );

  it('returns the four report routes, the three close routes and the rates route without the portal', () => {
    const routes = withoutPortal().filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Route');
    expect(routes.map((route) => route.Properties.RouteKey).sort()).toEqual([
      'GET /closes',
      'GET /rates',
      'GET /reports',
      'GET /reports/{jobId}',
      'POST /closes',
      'POST /closes/reopen',
      'POST /reports',
      'POST /reports/{jobId}/archive',
    ]);
  });

  it('requires IAM authorization on every route without the portal or a JWT issuer', () => {
    const resources = withoutPortal();
    const types = resources.flatMap((resource) =>
      resource.Type === 'AWS::ApiGatewayV2::Route' ? [resource.Properties.AuthorizationType] : [],
    );
    expect(types).toEqual(Array(8).fill('AWS_IAM'));
    expect(resources.filter((resource) => resource.Type === 'AWS::ApiGatewayV2::Authorizer')).toEqual([]);
  });

  it('proxies to the HTTP API function with payload format 2.0', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '2.0',
      IntegrationUri: { 'Fn::GetAtt': [functionLogicalId(stack, 'httpApi'), 'Arn'] },
    });
  });

  it('writes access logs of the default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AccessLogSettings: {
        DestinationArn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.api.accessLogs), 'Arn'] },
        Format: Match.stringLikeRegexp('requestId'),
      },
    });
  });
});

describe('PbsExportStack execution-end rule', () => {
  /** The one rule on Step Functions status changes. */
  function rule() {
    const found = resourcesOfType('AWS::Events::Rule').filter(([, candidate]) =>
      JSON.stringify(candidate.Properties.EventPattern ?? {}).includes('Execution Status Change'),
    );
    expect(found).toHaveLength(1);
    const [id, resource] = found[0] as [string, { Properties: Record<string, unknown> }];
    return {
      id,
      properties: resource.Properties,
      target: (resource.Properties.Targets as Record<string, unknown>[])[0] ?? {},
    };
  }

  /**
   * What EventBridge hands the target: each `<name>` of the template replaced by the value at its
   * path, as JSON (inside quotes, a string's characters only).
   */
  function transform(
    transformer: { InputPathsMap: Record<string, string>; InputTemplate: string },
    event: unknown,
  ) {
    return transformer.InputTemplate.replace(
      /("?)<([A-Za-z0-9_.-]+)>("?)/g,
      (_all, open: string, name: string, close: string) => {
        const path = transformer.InputPathsMap[name];
        if (path === undefined) throw new Error(`no path for <${name}>`);
        const value = path
          .replace(/^\$\.?/, '')
          .split('.')
          .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], event);
        return open === '"' && close === '"'
          ? `"${String(value)}"`
          : `${open}${JSON.stringify(value)}${close}`;
      },
    );
  }

  it('matches the executions of the export state machine that timed out, were aborted or failed', () => {
    expect(rule().properties.EventPattern).toEqual({
      source: ['aws.states'],
      'detail-type': ['Step Functions Execution Status Change'],
      detail: {
        status: [...EXECUTION_END_STATUSES],
        stateMachineArn: [{ Ref: logicalIdOf(stack, stack.exportStateMachine) }],
      },
    });
    expect(rule().properties.State).toBe('ENABLED');
  });

  it('targets the fail function, retrying for a day and then keeping the event in a dead-letter queue', () => {
    expect(rule().target).toMatchObject({
      Arn: { 'Fn::GetAtt': [functionLogicalId(stack, 'fail'), 'Arn'] },
      RetryPolicy: { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 },
      DeadLetterConfig: {
        Arn: { 'Fn::GetAtt': [logicalIdOf(stack, stack.executionEndDeadLetterQueue), 'Arn'] },
      },
    });
  });

  it('hands the fail function the job id and the status of a real TIMED_OUT event', () => {
    const event = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', 'fixtures', 'events', 'execution-timed-out.json'), 'utf8'),
    ) as { detail: { name: string } };

    const input = transform(rule().target.InputTransformer as Parameters<typeof transform>[0], event);

    expect(JSON.parse(input)).toEqual({ jobId: event.detail.name, executionStatus: 'TIMED_OUT' });
  });

  it('lets EventBridge invoke the fail function for this rule only', () => {
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Action: 'lambda:InvokeFunction',
      FunctionName: { 'Fn::GetAtt': [functionLogicalId(stack, 'fail'), 'Arn'] },
      Principal: 'events.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [rule().id, 'Arn'] },
    });
  });

  it('alarms on one event in its dead-letter queue', () => {
    const alarms = resourcesOfType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [logicalIdOf(stack, stack.executionEndDeadLetterQueue), 'QueueName'] },
          },
        ],
        Threshold: 1,
      }),
    );
  });
});

describe('PbsExportStack alarms', () => {
  const alarms = () => resourcesOfType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);

  it.each([
    ['export', () => stack.exportStateMachine],
    ['monthly', () => stack.monthlyStateMachine],
  ] as const)('alarms on one failed execution of the %s state machine', (_name, machine) => {
    expect(alarms()).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/States',
        MetricName: 'ExecutionsFailed',
        Dimensions: [{ Name: 'StateMachineArn', Value: { Ref: logicalIdOf(stack, machine()) } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
  });

  it('alarms on one message visible in the dead-letter queue', () => {
    expect(alarms()).toContainEqual(
      expect.objectContaining({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [
          {
            Name: 'QueueName',
            Value: { 'Fn::GetAtt': [logicalIdOf(stack, stack.scheduleDeadLetterQueue), 'QueueName'] },
          },
        ],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      }),
    );
  });
});

describe('PbsExportStack template', () => {
  it('has no dependency cycle (the HTTP API function names the API that invokes it)', () => {
    const dependencies = (value: unknown, found = new Set<string>()): Set<string> => {
      if (Array.isArray(value)) for (const item of value) dependencies(item, found);
      else if (value !== null && typeof value === 'object') {
        for (const [key, item] of Object.entries(value)) {
          if (key === 'Ref' && typeof item === 'string' && item in resources) found.add(item);
          else if (key === 'Fn::GetAtt' && Array.isArray(item)) found.add(String(item[0]));
          else if (key === 'DependsOn') for (const id of [item].flat()) found.add(String(id));
          else dependencies(item, found);
        }
      }
      return found;
    };
    const graph = new Map(Object.entries(resources).map(([id, resource]) => [id, dependencies(resource)]));
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (id: string, path: string[]) => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'visiting') {
        cycles.push([...path, id].join(' → '));
        return;
      }
      state.set(id, 'visiting');
      for (const next of graph.get(id) ?? []) visit(next, [...path, id]);
      state.set(id, 'done');
    };
    for (const id of graph.keys()) visit(id, []);

    expect(cycles).toEqual([]);
  });
});

describe('PbsExportStack cdk-nag', () => {
  it('returns no AwsSolutions finding that is not acknowledged', () => {
    const report = new AwsSolutionsChecks(synthesized.app).validateScope(synthesized.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });

  it('acknowledges every finding with a reason', () => {
    const reasons = synthesized.app.node
      .findAll()
      .flatMap((construct) => construct.node.metadata)
      .filter((entry) => entry.type === 'aws:cdk:acknowledged-rules')
      .flatMap((entry) => Object.values(entry.data as Record<string, string>));
    expect(reasons.length).toBeGreaterThan(0);
    expect(reasons.filter((reason) => reason.trim().length < 20)).toEqual([]);
  });

  it('returns no CDK warning or error annotation', () => {
    const annotations = Annotations.fromStack(stack);
    expect(annotations.findError('*', Match.anyValue())).toEqual([]);
    expect(annotations.findWarning('*', Match.anyValue())).toEqual([]);
  });
});
