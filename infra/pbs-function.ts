import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import {
  BUNDLE_BANNER,
  BUNDLE_CONDITIONS,
  BUNDLE_MAIN_FIELDS,
  BUNDLE_TARGET,
  bundleFileCommands,
  SOURCE_MAP_FOLDER,
  workerBundleCommands,
} from './bundling.ts';
import { acknowledge } from './nag.ts';

/** The repository root: entries, the lock file and `tsconfig.json` are resolved from it. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Powertools service name of every function. */
export const SERVICE_NAME = 'pbs-export';

/** How the functions' code is built. */
export type FunctionCodeMode =
  /** esbuild on this machine (never Docker): what `cdk synth` and `cdk deploy` use. */
  | 'bundle'
  /** An inline stub instead of the bundle, for template assertions in tests only. */
  | 'stub';

/** Properties of {@link PbsFunction}. */
export interface PbsFunctionProps {
  /** Entry file relative to the repository root (e.g. `functions/export-plan.ts`); exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** Environment of this function, added to the shared defaults. */
  readonly environment?: Record<string, string>;
  /** @default 512 */
  readonly memorySize?: number;
  /** @default 1 minute */
  readonly timeout?: Duration;
  readonly logRetention: logs.RetentionDays;
  /** @default 'bundle' */
  readonly codeMode?: FunctionCodeMode;
  /**
   * Folders copied beside the bundle, repository-relative `from` → bundle-relative `to` (files a
   * module reads next to itself, e.g. the portal's static files).
   */
  readonly bundleFiles?: readonly { from: string; to: string }[];
}

/**
 * A Lambda function with the project's defaults: Node.js 22 on arm64, ESM bundle built by local
 * esbuild (minified, carrying only the code the function runs: `infra/bundling.ts`; its
 * source map kept outside the code package, in `cdk.out/source-maps/`), X-Ray tracing, JSON logs into its own log group with a
 * retention, Powertools environment, and a role that may only write to that log group and X-Ray
 * (every other permission is granted by the stack, per function).
 */
export class PbsFunction extends Construct {
  readonly function: lambda.Function;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PbsFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // Own role instead of AWSLambdaBasicExecutionRole: logs only into this function's log group.
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${SERVICE_NAME} ${id}`,
    });
    this.role.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [this.logGroup.logGroupArn],
      }),
    );

    const common = {
      description: props.description,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.minutes(1),
      tracing: lambda.Tracing.ACTIVE,
      role: this.role,
      logGroup: this.logGroup,
      loggingFormat: lambda.LoggingFormat.JSON,
      environment: {
        POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
        // The namespace lib/lambda/observability.ts publishes in (METRICS_NAMESPACE).
        POWERTOOLS_METRICS_NAMESPACE: 'PbsExport',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        ...props.environment,
      },
    } satisfies Partial<lambda.FunctionProps>;

    if ((props.codeMode ?? 'bundle') === 'stub') {
      this.function = new lambda.Function(this, 'Function', {
        ...common,
        code: lambda.Code.fromInline('exports.handler = async () => ({});'),
        handler: 'index.handler',
      });
    } else {
      this.function = new NodejsFunction(this, 'Function', {
        ...common,
        entry: join(PROJECT_ROOT, props.entry),
        handler: 'handler',
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
        bundling: {
          forceDockerBundling: false,
          format: OutputFormat.ESM,
          target: BUNDLE_TARGET,
          minify: true,
          // Error class names survive minification: the state machine's retriers and catches
          // match them (`ValidationError`, `ProfileBusyError`, …), and job failure reasons show them.
          keepNames: true,
          // Written, then moved out of the code package (`afterBundling`): a 3.5 MB map in each
          // package would be read at every cold start for stack traces that name the functions anyway.
          sourceMap: true,
          sourcesContent: false,
          mainFields: BUNDLE_MAIN_FIELDS,
          // The whole SDK is bundled: the versions the project pins, and @aws-sdk/lib-storage and
          // the presigner, which the runtime does not promise to include.
          externalModules: [],
          // The conditions pick the AWS SDK loaders that import statically (BUNDLE_CONDITIONS).
          esbuildArgs: { '--conditions': BUNDLE_CONDITIONS.join(',') },
          banner: BUNDLE_BANNER,
          commandHooks: bundlingHooks(props.bundleFiles ?? [], props.entry),
        },
      });
    }

    acknowledge(
      this.role,
      'AwsSolutions-IAM5[Resource::*]',
      'X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions (Resource: *).',
    );
    acknowledge(
      this.function,
      'AwsSolutions-L1',
      'Node.js 22 is the runtime chosen for the project (DESIGN.md); moving to a newer one is a deliberate upgrade.',
    );
  }
}

/**
 * Bundling hooks: after esbuild, `files` (repository-relative folders) and the function's own files
 * (`BUNDLE_FILES`: the finish's fonts) are copied into the bundle's folder, the function's worker
 * threads are bundled beside it (`WORKER_ENTRIES`), and the source map is moved out of it, into
 * `<cdk.out>/source-maps/<name>.mjs.map`.
 */
function bundlingHooks(files: readonly { from: string; to: string }[], entry: string) {
  const name = basename(entry).replace(/\.ts$/, '');
  const quote = (path: string) => `'${path.replace(/'/g, "'\\''")}'`;
  return {
    beforeBundling: () => [],
    beforeInstall: () => [],
    afterBundling: (inputDir: string, outputDir: string) => {
      const maps = join(dirname(outputDir), SOURCE_MAP_FOLDER);
      return [
        ...files.map(
          ({ from, to }) =>
            `mkdir -p ${quote(join(outputDir, to))} && cp -R ${quote(join(inputDir, from))}/. ${quote(join(outputDir, to))}`,
        ),
        ...bundleFileCommands(entry, inputDir, outputDir),
        ...workerBundleCommands(entry, inputDir, outputDir),
        `mkdir -p ${quote(maps)} && mv ${quote(join(outputDir, 'index.mjs.map'))} ${quote(join(maps, `${name}.mjs.map`))}`,
      ];
    },
  };
}
