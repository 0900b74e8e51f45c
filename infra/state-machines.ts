import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sfn from 'aws-cdk-lib/aws-stepfunctions';
import * as tasks from 'aws-cdk-lib/aws-stepfunctions-tasks';
import { Construct } from 'constructs';

/** Names of the export state machine's states (the local execution test refers to them). */
export const EXPORT_STATES = {
  flow: 'Export',
  plan: 'Plan',
  fetchShards: 'FetchShards',
  fetchShard: 'FetchShard',
  finish: 'Finish',
  markFailed: 'MarkFailed',
  failed: 'ExportFailed',
} as const;

/** Names of the monthly state machine's states. */
export const MONTHLY_STATES = {
  startAll: 'ExportScheduledProfiles',
  start: 'StartMonthlyExport',
  wait: 'WaitForExport',
  describe: 'DescribeExport',
  running: 'ExportRunning',
  ended: 'ExportEnded',
} as const;

/**
 * Errors of the handlers (`Error` of a Lambda failure = the error's class name) that another
 * attempt cannot fix: invalid requests or configuration, unknown jobs or profiles, unreadable
 * secrets, a job in the wrong state, data the service should never have returned.
 */
export const PERMANENT_ERRORS = [
  'ValidationError',
  'RequestValidationError',
  'UnknownProfileError',
  'JobNotFoundError',
  'JobStateError',
  'ConfigError',
  'SecretError',
  'TransactionDataError',
] as const;

/** Name of the error a plan task throws while its profile's slot is held by another export. */
export const PROFILE_BUSY_ERROR = 'ProfileBusyError';

/**
 * The plan task's wait for its profile's slot: 99 attempts, 20 s growing ×1.5 up to 5 minutes,
 * full jitter: about 4 hours on average before the job fails with ProfileBusyError (within the
 * export machine's 6-hour timeout).
 */
export const PROFILE_BUSY_RETRY: sfn.RetryProps = {
  errors: [PROFILE_BUSY_ERROR],
  interval: Duration.seconds(20),
  maxAttempts: 99,
  backoffRate: 1.5,
  maxDelay: Duration.minutes(5),
  jitterStrategy: sfn.JitterType.FULL,
};

/**
 * Retries every task gets, in order (the first retrier whose errors match decides): none for
 * {@link PERMANENT_ERRORS}; Lambda's own transient errors (throttling, service errors); then any
 * other task failure, with exponential backoff and full jitter (`first` retriers, such as the plan's
 * wait for its slot, come right after the permanent errors). A failed fetch is retried whole
 * although the service client already retried each request: a fresh invocation (new token
 * bucket, after the service recovered) often succeeds.
 */
function addTaskRetries(
  task: tasks.LambdaInvoke,
  maxAttempts: number,
  ...first: sfn.RetryProps[]
): sfn.TaskStateBase {
  task.addRetry({ errors: [...PERMANENT_ERRORS], maxAttempts: 0 });
  for (const retry of first) task.addRetry(retry);
  return task
    .addRetry({
      errors: [
        'Lambda.ServiceException',
        'Lambda.AWSLambdaException',
        'Lambda.SdkClientException',
        'Lambda.TooManyRequestsException',
      ],
      interval: Duration.seconds(2),
      maxAttempts: 6,
      backoffRate: 2,
      maxDelay: Duration.minutes(1),
      jitterStrategy: sfn.JitterType.FULL,
    })
    .addRetry({
      errors: [sfn.Errors.TASKS_FAILED],
      interval: Duration.seconds(10),
      maxAttempts,
      backoffRate: 3,
      maxDelay: Duration.minutes(5),
      jitterStrategy: sfn.JitterType.FULL,
    });
}

function invoke(
  scope: Construct,
  id: string,
  fn: lambda.IFunction,
  payload?: Record<string, unknown>,
  resultPath?: string,
) {
  return new tasks.LambdaInvoke(scope, id, {
    lambdaFunction: fn,
    // The function's ARN becomes the task's Resource and its result is the state's output.
    payloadResponseOnly: true,
    // addTaskRetries gives every task its retriers (backoff, jitter) instead of the default one.
    retryOnServiceExceptions: false,
    ...(payload ? { payload: sfn.TaskInput.fromObject(payload) } : {}),
    ...(resultPath ? { resultPath } : {}),
  });
}

function stateMachineLogGroup(scope: Construct, retention: logs.RetentionDays): logs.LogGroup {
  return new logs.LogGroup(scope, 'Logs', {
    retention,
    removalPolicy: RemovalPolicy.DESTROY,
  });
}

/** Properties of {@link ExportStateMachine}. */
export interface ExportStateMachineProps {
  readonly plan: lambda.IFunction;
  readonly fetchShard: lambda.IFunction;
  readonly finish: lambda.IFunction;
  readonly fail: lambda.IFunction;
  /** Shards fetched at once. */
  readonly mapConcurrency: number;
  /** Attempts of a failed task (after the first). */
  readonly taskRetryAttempts?: number;
  readonly logRetention: logs.RetentionDays;
  /** @default 6 hours */
  readonly timeout?: Duration;
}

/**
 * The export of one job (input `{ jobId }`): Plan → Map over the plan's shards (fetch each) →
 * Finish, inside one Parallel whose Catch hands `{ jobId, error }` to MarkFailed, then fails.
 */
export class ExportStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ExportStateMachineProps) {
    super(scope, id);
    const attempts = props.taskRetryAttempts ?? 2;

    // Plan waits while another export of the same secret runs (ProfileBusyError, see
    // lib/jobs/profile-slots.ts): the job stays queued, retried with backoff for hours.
    const plan = addTaskRetries(
      invoke(this, EXPORT_STATES.plan, props.plan, { 'jobId.$': '$.jobId' }),
      attempts,
      PROFILE_BUSY_RETRY,
    );
    const fetchShard = addTaskRetries(invoke(this, EXPORT_STATES.fetchShard, props.fetchShard), attempts);
    const fetchShards = new sfn.Map(this, EXPORT_STATES.fetchShards, {
      itemsPath: '$.shards',
      itemSelector: { 'jobId.$': '$.jobId', 'shard.$': '$$.Map.Item.Value' },
      maxConcurrency: props.mapConcurrency,
      // Shard results are not needed downstream (finish reads the plan and parts from S3), and
      // thousands of them could exceed the 256 KiB state payload limit.
      resultPath: sfn.JsonPath.DISCARD,
    });
    fetchShards.itemProcessor(fetchShard);
    const finish = addTaskRetries(
      invoke(this, EXPORT_STATES.finish, props.finish, { 'jobId.$': '$.jobId' }),
      attempts,
    );

    const flow = new sfn.Parallel(this, EXPORT_STATES.flow, {
      // The branch's only output is Finish's result.
      outputPath: '$[0]',
    });
    flow.branch(plan.next(fetchShards).next(finish));

    const markFailed = addTaskRetries(
      // The error stays in the state for the Fail state that follows.
      invoke(
        this,
        EXPORT_STATES.markFailed,
        props.fail,
        { 'jobId.$': '$.jobId', 'error.$': '$.error' },
        '$.marked',
      ),
      attempts,
    );
    const failed = new sfn.Fail(this, EXPORT_STATES.failed, {
      errorPath: '$.error.Error',
      causePath: '$.error.Cause',
    });
    flow.addCatch(markFailed.next(failed), { errors: [sfn.Errors.ALL], resultPath: '$.error' });

    this.logGroup = stateMachineLogGroup(this, props.logRetention);
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment: 'pbs-export: plan, fetch the shards, finish one export job ({ jobId })',
      definitionBody: sfn.DefinitionBody.fromChainable(flow),
      timeout: props.timeout ?? Duration.hours(6),
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
  }
}

/** Properties of {@link MonthlyStateMachine}. */
export interface MonthlyStateMachineProps {
  readonly monthlyStart: lambda.IFunction;
  /** The export state machine monthly-start starts (executions named by job id). */
  readonly exportStateMachine: sfn.StateMachine;
  /** Profiles exported at once: items in flight, each until its export has ended. */
  readonly maxConcurrency: number;
  readonly logRetention: logs.RetentionDays;
  /** How often an item looks whether its export has ended. @default 1 minute */
  readonly pollInterval?: Duration;
  /** @default 2 days */
  readonly timeout?: Duration;
}

/**
 * The monthly run (input `{ scheduledTime, profiles: [{ profile, gains }] }`): a Distributed Map
 * over the profiles. Each item `{ profile, gains, scheduledTime }` invokes monthly-start, which creates the (profile, month) job
 * and starts its export execution (named by the job id), then waits until that execution has
 * ended: so MaxConcurrency bounds the exports running at once, not only their starts. A failed
 * export ends its item normally (the export's own alarm reports it).
 */
export class MonthlyStateMachine extends Construct {
  readonly stateMachine: sfn.StateMachine;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: MonthlyStateMachineProps) {
    super(scope, id);

    const start = addTaskRetries(
      invoke(this, MONTHLY_STATES.start, props.monthlyStart, undefined, '$.started'),
      3,
    );
    const executions = Stack.of(this).formatArn({
      service: 'states',
      resource: 'execution',
      resourceName: props.exportStateMachine.stateMachineName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const wait = new sfn.Wait(this, MONTHLY_STATES.wait, {
      time: sfn.WaitTime.duration(props.pollInterval ?? Duration.minutes(1)),
    });
    const describe = new tasks.CallAwsService(this, MONTHLY_STATES.describe, {
      service: 'sfn',
      action: 'describeExecution',
      parameters: {
        ExecutionArn: sfn.JsonPath.format(`${executions}:{}`, sfn.JsonPath.stringAt('$.started.jobId')),
      },
      iamResources: [`${executions}:*`],
      iamAction: 'states:DescribeExecution',
      resultSelector: { 'status.$': '$.Status' },
      resultPath: '$.export',
    });
    describe.addRetry({
      errors: ['Sfn.SfnException', 'Sfn.ThrottlingException', 'States.Timeout'],
      interval: Duration.seconds(5),
      maxAttempts: 5,
      backoffRate: 2,
      jitterStrategy: sfn.JitterType.FULL,
    });
    const ended = new sfn.Succeed(this, MONTHLY_STATES.ended);
    // An execution that does not exist cannot be running (a job created and started long ago).
    describe.addCatch(ended, {
      errors: ['Sfn.ExecutionDoesNotExistException'],
      resultPath: sfn.JsonPath.DISCARD,
    });
    const running = new sfn.Choice(this, MONTHLY_STATES.running)
      .when(sfn.Condition.stringEquals('$.export.status', 'RUNNING'), wait)
      .otherwise(ended);

    const startAll = new sfn.DistributedMap(this, MONTHLY_STATES.startAll, {
      itemsPath: '$.profiles',
      itemSelector: {
        'profile.$': '$$.Map.Item.Value.profile',
        'gains.$': '$$.Map.Item.Value.gains',
        'journal.$': '$$.Map.Item.Value.journal',
        'scheduledTime.$': '$.scheduledTime',
      },
      maxConcurrency: props.maxConcurrency,
      mapExecutionType: sfn.StateMachineType.STANDARD,
      // What each item did is in its job record; collected results could outgrow the state's 256 KiB.
      resultPath: sfn.JsonPath.DISCARD,
    });
    startAll.itemProcessor(start.next(wait).next(describe).next(running));

    this.logGroup = stateMachineLogGroup(this, props.logRetention);
    this.stateMachine = new sfn.StateMachine(this, 'StateMachine', {
      comment:
        'pbs-export: export the previous month of every scheduled profile ({ scheduledTime, profiles: [{ profile, gains }] })',
      definitionBody: sfn.DefinitionBody.fromChainable(startAll),
      timeout: props.timeout ?? Duration.days(2),
      tracingEnabled: true,
      logs: { destination: this.logGroup, level: sfn.LogLevel.ALL, includeExecutionData: false },
    });
  }
}
