import { CfnOutput, Duration, Fn, Lazy, RemovalPolicy, Stack, type StackProps, TimeZone } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as s3 from 'aws-cdk-lib/aws-s3';
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from 'aws-cdk-lib/aws-scheduler';
import { LambdaInvoke, StepFunctionsStartExecution } from 'aws-cdk-lib/aws-scheduler-targets';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import type { ProfileRegistry } from '../lib/jobs/index.ts';
import { ENV, type PortalSignInSettings } from '../lib/lambda/index.ts';
import { EXECUTION_END_STATUSES, type ExecutionEndedInput } from '../lib/workflow/index.ts';
import { type PbsConfig, scheduledProfiles } from './config.ts';
import { type BucketPrefix, FUNCTIONS, type FunctionKey, type PrefixAccess } from './function-table.ts';
import { ReportsApi } from './http-api.ts';
import { acknowledge } from './nag.ts';
import { type FunctionCodeMode, PbsFunction, type PbsFunctionProps } from './pbs-function.ts';
import { COGNITO_GROUPS_CLAIM, PortalSignIn, ReadyNotices } from './portal.ts';
import { ratesLifecycleRule } from './rates-lifecycle.ts';
import { ManifestSigningKey } from './signing-key.ts';
import { ExportStateMachine, MonthlyStateMachine } from './state-machines.ts';

export { type BucketPrefix, FUNCTIONS, type FunctionKey, type PrefixAccess } from './function-table.ts';

/** Properties of {@link PbsExportStack}. */
export interface PbsExportStackProps extends StackProps {
  readonly config: PbsConfig;
  /** `stub` only for template assertions in tests: no bundling. @default 'bundle' */
  readonly codeMode?: FunctionCodeMode;
}

/**
 * pbs-export on AWS: the reports bucket, the seven functions, the export and monthly state
 * machines, the monthly schedule with its dead-letter queue, the daily rates fetch schedule, the
 * HTTP API and the alarms.
 */
export class PbsExportStack extends Stack {
  readonly bucket: s3.Bucket;
  readonly functions: Record<FunctionKey, PbsFunction>;
  readonly exportStateMachine: sfn.StateMachine;
  readonly monthlyStateMachine: sfn.StateMachine;
  readonly scheduleDeadLetterQueue: sqs.Queue;
  /** Where the execution-end rule keeps the events the fail function could not take. */
  readonly executionEndDeadLetterQueue: sqs.Queue;
  readonly executionEndRule: events.Rule;
  readonly api: ReportsApi;
  /** The portal's Cognito sign-in (portal enabled, no external JWT issuer). */
  readonly portalSignIn: PortalSignIn | undefined;
  /** The topic told when an export ends (portal enabled). */
  readonly notices: ReadyNotices | undefined;
  readonly alarms: cloudwatch.Alarm[];

  constructor(scope: Construct, id: string, props: PbsExportStackProps) {
    super(scope, id, props);
    const { config } = props;

    this.bucket = this.createBucket(config);

    const registry = this.profileRegistry(config);
    const secretArns = Object.values(registry).map((profile) => profile.secretArn);
    const environment: Record<string, string> = {
      [ENV.bucket]: this.bucket.bucketName,
      [ENV.profiles]: this.toJsonString(registry),
      [ENV.baseUrl]: config.baseUrl,
      [ENV.requestsPerSecond]: String(config.requestsPerSecond),
      [ENV.secretMaxAgeSeconds]: String(config.secretMaxAgeSeconds),
      [ENV.linkExpirySeconds]: String(config.linkExpirySeconds),
      ...(config.serviceShape ? { [ENV.serviceShape]: JSON.stringify(config.serviceShape) } : {}),
    };

    const make = (key: FunctionKey): PbsFunction => {
      const spec = FUNCTIONS[key];
      const fnProps: PbsFunctionProps = {
        entry: spec.entry,
        description: spec.description,
        memorySize: spec.memorySize,
        timeout: spec.timeout,
        environment,
        logRetention: config.logRetentionDays,
        codeMode: props.codeMode ?? 'bundle',
        ...(spec.bundleFiles ? { bundleFiles: spec.bundleFiles } : {}),
      };
      const fn = new PbsFunction(this, key[0]?.toUpperCase() + key.slice(1), fnProps);
      this.grantBucket(fn.role, spec.s3);
      if (spec.secrets) {
        fn.role.addToPolicy(
          new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: secretArns }),
        );
      }
      return fn;
    };
    this.functions = {
      httpApi: make('httpApi'),
      plan: make('plan'),
      fetchShard: make('fetchShard'),
      finish: make('finish'),
      fail: make('fail'),
      monthlyStart: make('monthlyStart'),
      ratesFetch: make('ratesFetch'),
    };
    // README: Proof. The finish signs each manifest with a key only it may sign with.
    const signingKey = new ManifestSigningKey(this, 'ManifestSigning', {
      signer: this.functions.finish.role,
    });
    this.functions.finish.function.addEnvironment(ENV.signingKeyArn, signingKey.key.keyArn);
    this.functions.ratesFetch.function.addEnvironment(ENV.ratesEcbUrl, config.rates.ecbUrl);
    this.functions.ratesFetch.function.addEnvironment(ENV.ratesHmrcUrl, config.rates.hmrcUrl);
    // Only the HTTP API authorizes callers per profile (lib/http-api/authorization.ts): by the
    // configured claim, or by the Cognito groups of the portal's user pool.
    const profilesClaim = config.jwt
      ? config.jwt.profilesClaim
      : config.portal.enabled
        ? COGNITO_GROUPS_CLAIM
        : null;
    if (profilesClaim) this.functions.httpApi.function.addEnvironment(ENV.profilesClaim, profilesClaim);

    const exportMachine = new ExportStateMachine(this, 'Export', {
      plan: this.functions.plan.function,
      fetchShard: this.functions.fetchShard.function,
      finish: this.functions.finish.function,
      fail: this.functions.fail.function,
      mapConcurrency: config.exportMapConcurrency,
      logRetention: config.logRetentionDays,
    });
    this.exportStateMachine = exportMachine.stateMachine;
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      if (!FUNCTIONS[key].startsExports) continue;
      const fn = this.functions[key];
      fn.function.addEnvironment(ENV.exportStateMachineArn, this.exportStateMachine.stateMachineArn);
      fn.role.addToPolicy(
        new iam.PolicyStatement({
          actions: ['states:StartExecution'],
          resources: [this.exportStateMachine.stateMachineArn],
        }),
      );
    }

    const monthlyMachine = new MonthlyStateMachine(this, 'Monthly', {
      monthlyStart: this.functions.monthlyStart.function,
      exportStateMachine: this.exportStateMachine,
      maxConcurrency: config.monthlyMaxConcurrency,
      logRetention: config.logRetentionDays,
    });
    this.monthlyStateMachine = monthlyMachine.stateMachine;

    this.scheduleDeadLetterQueue = new sqs.Queue(this, 'ScheduleDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.executionEndDeadLetterQueue = new sqs.Queue(this, 'ExecutionEndDeadLetterQueue', {
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.executionEndRule = this.createExecutionEndRule();
    new Schedule(this, 'MonthlySchedule', {
      description: 'pbs-export: monthly exports of the scheduled profiles (their previous local month)',
      schedule: ScheduleExpression.expression(config.scheduleCron, TimeZone.of(config.scheduleTimeZone)),
      target: new StepFunctionsStartExecution(this.monthlyStateMachine, {
        input: ScheduleTargetInput.fromObject({
          scheduledTime: ContextAttribute.scheduledTime,
          profiles: scheduledProfiles(config),
        }),
        deadLetterQueue: this.scheduleDeadLetterQueue,
        retryAttempts: 10,
        maxEventAge: Duration.hours(6),
      }),
    });

    new Schedule(this, 'RatesSchedule', {
      description: "pbs-export: daily fetch of the ECB's and HMRC's published rates files into rates/",
      schedule: ScheduleExpression.expression(
        config.rates.scheduleCron,
        TimeZone.of(config.rates.scheduleTimeZone),
      ),
      target: new LambdaInvoke(this.functions.ratesFetch.function, {
        role: this.ratesScheduleRole(),
        input: ScheduleTargetInput.fromObject({ scheduledTime: ContextAttribute.scheduledTime }),
        deadLetterQueue: this.scheduleDeadLetterQueue,
        retryAttempts: 3,
        maxEventAge: Duration.hours(6),
      }),
    });

    // The portal's URL is known once the API exists; the user pool's callback URL reads it then.
    let portalUrl = '';
    this.portalSignIn =
      config.portal.enabled && !config.jwt
        ? new PortalSignIn(this, 'PortalSignIn', {
            profiles: Object.keys(config.profiles).sort(),
            portalUrl: Lazy.string({ produce: () => portalUrl }),
            domainPrefix: config.portal.cognitoDomainPrefix,
          })
        : undefined;
    const portalSignIn = this.portalSignIn?.signInSettings() ?? config.jwt?.portalClient;
    this.api = new ReportsApi(this, 'Http', {
      handler: this.functions.httpApi.function,
      jwt: config.jwt,
      authorizer: this.portalSignIn?.authorizer(),
      portal: portalSignIn !== undefined,
      logRetention: config.logRetentionDays,
    });
    // Status URLs come from configuration, never from the request's Host header.
    this.functions.httpApi.function.addEnvironment(ENV.publicBaseUrl, config.publicBaseUrl ?? this.api.url);
    portalUrl = `${config.publicBaseUrl ?? this.api.url}/portal`;
    this.notices =
      portalSignIn !== undefined ? this.createPortal(portalSignIn, portalUrl, config) : undefined;

    this.alarms = this.createAlarms(config, exportMachine.stateMachine, monthlyMachine.stateMachine);

    new CfnOutput(this, 'ApiUrl', { value: this.api.url });
    if (this.notices) {
      new CfnOutput(this, 'PortalUrl', { value: portalUrl });
      new CfnOutput(this, 'NoticesTopicArn', { value: this.notices.topic.topicArn });
    }
    if (this.portalSignIn)
      new CfnOutput(this, 'UserPoolId', { value: this.portalSignIn.userPool.userPoolId });
    new CfnOutput(this, 'BucketName', { value: this.bucket.bucketName });
    new CfnOutput(this, 'ExportStateMachineArn', { value: this.exportStateMachine.stateMachineArn });
    new CfnOutput(this, 'MonthlyStateMachineArn', { value: this.monthlyStateMachine.stateMachineArn });

    this.suppressNagFindings(exportMachine, monthlyMachine);
  }

  /**
   * The portal's wiring: its sign-in settings for the HTTP API function, and the topic the finish
   * and fail functions tell when an export ends, linking to the portal.
   */
  private createPortal(signIn: PortalSignInSettings, portalUrl: string, config: PbsConfig): ReadyNotices {
    this.functions.httpApi.function.addEnvironment(ENV.portalSignIn, this.toJsonString(signIn));
    const notices = new ReadyNotices(this, 'Notices', { subscribers: config.portal.subscribers });
    for (const key of ['finish', 'fail'] as const) {
      const fn = this.functions[key];
      fn.function.addEnvironment(ENV.notifyTopicArn, notices.topic.topicArn);
      fn.function.addEnvironment(ENV.portalUrl, portalUrl);
      // Publish only: the topic's key is the AWS managed aws/sns, whose policy lets the account's
      // principals use it through SNS (grantPublish would add kms:* on every key of the account).
      fn.role.addToPrincipalPolicy(
        new iam.PolicyStatement({ actions: ['sns:Publish'], resources: [notices.topic.topicArn] }),
      );
    }
    return notices;
  }

  /**
   * An export execution can end without its catch running: it TIMED_OUT (the machine's timeout),
   * was ABORTED (StopExecution), or FAILED where the catch itself failed. Step Functions reports
   * each on EventBridge; this rule hands `{ jobId, executionStatus }` (the execution is named by
   * the job id) to the fail function, which marks a job still queued or running failed and frees
   * its key's slot and queue place (a job the catch already marked keeps its reason).
   */
  private createExecutionEndRule(): events.Rule {
    const input: Record<keyof ExecutionEndedInput, string> = {
      jobId: events.EventField.fromPath('$.detail.name'),
      executionStatus: events.EventField.fromPath('$.detail.status'),
    };
    return new events.Rule(this, 'ExecutionEndRule', {
      description:
        'pbs-export: an export execution that timed out, was aborted or failed marks its job failed and frees its API key',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: [...EXECUTION_END_STATUSES],
          stateMachineArn: [this.exportStateMachine.stateMachineArn],
        },
      },
      targets: [
        new targets.LambdaFunction(this.functions.fail.function, {
          event: events.RuleTargetInput.fromObject(input),
          // EventBridge's longest retry: a job must not stay running because the function was throttled.
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
          deadLetterQueue: this.executionEndDeadLetterQueue,
        }),
      ],
    });
  }

  private createBucket(config: PbsConfig): s3.Bucket {
    const accessLogs = new s3.Bucket(this, 'AccessLogs', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      lifecycleRules: [{ id: 'expire-access-logs', expiration: Duration.days(365) }],
      removalPolicy: RemovalPolicy.RETAIN,
    });
    acknowledge(
      accessLogs,
      'AwsSolutions-S1',
      'This is the server access log bucket of the reports bucket; logging it into itself would loop.',
    );

    return new s3.Bucket(this, 'Reports', {
      encryption: s3.BucketEncryption.S3_MANAGED,
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      minimumTLSVersion: 1.2,
      versioned: true,
      // Closed sets are never replaced or deleted: a close puts governance-mode retention on its
      // set's objects (lib/close/s3-lock.ts). No default retention: work/, jobs/ and _staging/
      // must still expire. The functions' roles never get s3:BypassGovernanceRetention.
      objectLockEnabled: true,
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'reports-bucket/',
      removalPolicy: RemovalPolicy.RETAIN,
      lifecycleRules: [
        { id: 'abort-incomplete-multipart-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
        {
          id: 'expire-work',
          prefix: 'work/',
          expiration: Duration.days(config.workRetentionDays),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          // A run's files are staged here for seconds before being copied under reports/; what a
          // killed run staged (never a finished set) goes after a day.
          id: 'expire-staging',
          prefix: '_staging/',
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          id: 'expire-jobs',
          prefix: 'jobs/',
          expiration: Duration.days(config.jobRetentionDays),
          // Records are rewritten at every state change: their old versions are of no use.
          noncurrentVersionExpiration: Duration.days(1),
        },
        {
          // Leases live 30 minutes and are rewritten while held: a day-old one is long free.
          id: 'expire-locks',
          prefix: 'locks/',
          expiration: Duration.days(1),
          noncurrentVersionExpiration: Duration.days(1),
        },
        // Kept rates files never expire; old ones move to a cheaper class (rates-lifecycle.ts).
        ratesLifecycleRule(),
        {
          id: 'expire-noncurrent-versions',
          noncurrentVersionExpiration: Duration.days(config.noncurrentVersionRetentionDays),
          expiredObjectDeleteMarker: true,
        },
      ],
    });
  }

  /**
   * The role the rates schedule invokes the fetch function with (its own, so its findings are
   * acknowledged on it alone): the target grants it that one function, its versions included.
   */
  private ratesScheduleRole(): iam.Role {
    const role = new iam.Role(this, 'RatesScheduleRole', {
      assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com'),
      description: 'pbs-export: the daily rates schedule invokes the rates fetch function',
    });
    const fnId = this.getLogicalId(
      this.functions.ratesFetch.function.node.defaultChild as lambda.CfnFunction,
    );
    acknowledge(
      role,
      `AwsSolutions-IAM5[Resource::<${fnId}.Arn>:*]`,
      'lambda:InvokeFunction on the rates fetch function and its versions (the Scheduler target grants both); nothing else.',
    );
    return role;
  }

  /** The registry the functions read: the config's profiles, ARN placeholders resolved. */
  private profileRegistry(config: PbsConfig): ProfileRegistry {
    return Object.fromEntries(
      Object.entries(config.profiles).map(([name, profile]) => [
        name,
        {
          secretArn: profile.secretArn.includes('${') ? Fn.sub(profile.secretArn) : profile.secretArn,
          timeZone: profile.timeZone,
          monthly: profile.monthly,
        },
      ]),
    );
  }

  private grantBucket(role: iam.IRole, access: Partial<Record<BucketPrefix, PrefixAccess>>): void {
    const objects = (prefix: string) => this.bucket.arnForObjects(`${prefix}*`);
    const listed: string[] = [];
    const actions = new Map<string, string[]>();
    for (const [prefix, can] of Object.entries(access) as [BucketPrefix, PrefixAccess][]) {
      const granted = [
        ...(can.read ? ['s3:GetObject'] : []),
        ...(can.write ? ['s3:PutObject'] : []),
        ...(can.multipart ? ['s3:AbortMultipartUpload'] : []),
        ...(can.delete ? ['s3:DeleteObject'] : []),
        ...(can.retention ? ['s3:PutObjectRetention'] : []),
      ];
      for (const action of granted) actions.set(action, [...(actions.get(action) ?? []), objects(prefix)]);
      if (can.read) listed.push(`${prefix}*`);
    }
    for (const [action, resources] of actions) {
      role.addToPrincipalPolicy(new iam.PolicyStatement({ actions: [action], resources }));
    }
    if (Object.values(access).some((can) => can?.retention === true)) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['s3:GetBucketObjectLockConfiguration'],
          resources: [this.bucket.bucketArn],
        }),
      );
    }
    if (listed.length > 0) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['s3:ListBucket'],
          resources: [this.bucket.bucketArn],
          conditions: { StringLike: { 's3:prefix': listed } },
        }),
      );
    }
  }

  private createAlarms(
    config: PbsConfig,
    exportMachine: sfn.StateMachine,
    monthlyMachine: sfn.StateMachine,
  ): cloudwatch.Alarm[] {
    const atLeastOne = {
      threshold: 1,
      evaluationPeriods: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    };
    const alarms = [
      new cloudwatch.Alarm(this, 'ExportFailedAlarm', {
        alarmDescription: 'An export execution failed (its job record says why).',
        metric: exportMachine.metricFailed({ period: Duration.minutes(5), statistic: 'Sum' }),
        ...atLeastOne,
      }),
      new cloudwatch.Alarm(this, 'MonthlyFailedAlarm', {
        alarmDescription: 'The monthly run failed: some scheduled exports may not have started.',
        metric: monthlyMachine.metricFailed({ period: Duration.minutes(5), statistic: 'Sum' }),
        ...atLeastOne,
      }),
      new cloudwatch.Alarm(this, 'ExecutionEndDeadLetterAlarm', {
        alarmDescription:
          'An ended export execution could not be recorded: its job may still show running (event in the dead-letter queue).',
        metric: this.executionEndDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        ...atLeastOne,
      }),
      new cloudwatch.Alarm(this, 'ScheduleDeadLetterAlarm', {
        alarmDescription:
          'A schedule (monthly run, daily rates fetch) could not deliver its event (in the dead-letter queue).',
        metric: this.scheduleDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        ...atLeastOne,
      }),
      new cloudwatch.Alarm(this, 'RatesFetchFailedAlarm', {
        alarmDescription:
          'The daily rates fetch failed: a published rates file could not be fetched or was refused (its log says which and why).',
        metric: this.functions.ratesFetch.function.metricErrors({
          period: Duration.minutes(5),
          statistic: 'Sum',
        }),
        ...atLeastOne,
      }),
    ];
    if (config.alarmTopicArn) {
      const topic = sns.Topic.fromTopicArn(this, 'AlarmTopic', config.alarmTopicArn);
      for (const alarm of alarms) alarm.addAlarmAction(new SnsAction(topic));
    }
    return alarms;
  }

  private suppressNagFindings(exportMachine: ExportStateMachine, monthlyMachine: MonthlyStateMachine): void {
    const bucketId = this.getLogicalId(this.bucket.node.defaultChild as s3.CfnBucket);
    for (const key of Object.keys(FUNCTIONS) as FunctionKey[]) {
      for (const prefix of Object.keys(FUNCTIONS[key].s3)) {
        acknowledge(
          this.functions[key].role,
          `AwsSolutions-IAM5[Resource::<${bucketId}.Arn>/${prefix}*]`,
          `Object keys under a prefix: the function may only touch ${prefix}* of the reports bucket.`,
        );
      }
    }
    const invoked: [MonthlyStateMachine | ExportStateMachine, FunctionKey[]][] = [
      [exportMachine, ['plan', 'fetchShard', 'finish', 'fail']],
      [monthlyMachine, ['monthlyStart']],
    ];
    for (const [machine, keys] of invoked) {
      const role = machine.stateMachine.role;
      for (const key of keys) {
        const functionId = this.getLogicalId(
          this.functions[key].function.node.defaultChild as lambda.CfnFunction,
        );
        acknowledge(
          role,
          `AwsSolutions-IAM5[Resource::<${functionId}.Arn>:*]`,
          'LambdaInvoke may call the versions and aliases of the one function it invokes (ARN:*).',
        );
      }
      acknowledge(
        role,
        'AwsSolutions-IAM5[Resource::*]',
        'X-Ray tracing and CloudWatch Logs log delivery (logs:CreateLogDelivery, …) support no resource-level permissions.',
      );
    }
    const exportId = this.getLogicalId(exportMachine.stateMachine.node.defaultChild as sfn.CfnStateMachine);
    acknowledge(
      monthlyMachine.stateMachine.role,
      `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:<${exportId}.Name>:*]`,
      'Each monthly item describes the export execution it started; executions are named by job id, known only at run time.',
    );
    // cdk-nag names each wildcard resource as it renders it, intrinsics included.
    const monthlyId = this.getLogicalId(monthlyMachine.stateMachine.node.defaultChild as sfn.CfnStateMachine);
    const childExecutions = `arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:{"Fn::Select":[6,{"Fn::Split":[":",{"Ref":"${monthlyId}"}]}]}`;
    for (const resource of [`${childExecutions}:*`, `${childExecutions}/*:*`]) {
      acknowledge(
        monthlyMachine.stateMachine.node.findChild('DistributedMapPolicy'),
        `AwsSolutions-IAM5[Resource::${resource}]`,
        'The Distributed Map starts, describes and stops its own child executions, named only at run time.',
      );
    }
    acknowledge(
      this.scheduleDeadLetterQueue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter queue of the monthly schedule.',
    );
    acknowledge(
      this.executionEndDeadLetterQueue,
      'AwsSolutions-SQS3',
      'This queue is itself the dead-letter queue of the execution-end rule.',
    );
  }
}
