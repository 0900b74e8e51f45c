/** Shared setup of the infra tests: the app built as `cdk synth` builds it, with a test config. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { PbsConfigInput } from '../../infra/config.ts';
import { createPbsApp } from '../../infra/pbs-app.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import type { FunctionKey, PbsExportStack } from '../../infra/stack.ts';

/** The test secret ARN of a profile (full ARN with its 6-character suffix). */
export const secretArn = (profile: string) =>
  `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${profile}-AbCdEf`;

/** A config with values other than the defaults, so that each one can be seen to arrive. */
export const TEST_CONFIG = {
  profiles: {
    demo: { secretArn: secretArn('demo'), timeZone: 'UTC', monthly: true },
    acme: { secretArn: secretArn('acme'), timeZone: 'Europe/Berlin', monthly: true },
    empty: { secretArn: secretArn('empty'), timeZone: 'UTC', monthly: false },
  },
  baseUrl: 'https://pbs.example.com/api',
  scheduleTimeZone: 'Europe/Berlin',
  scheduleCron: 'cron(15 2 1 * ? *)',
  workRetentionDays: 5,
  jobRetentionDays: 60,
  monthlyMaxConcurrency: 7,
  exportMapConcurrency: 3,
  requestsPerSecond: 5,
} satisfies PbsConfigInput;

/** The context of `cdk.json` (feature flags and the sample config). */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
}

/** A synthesized test app. */
export interface SynthesizedApp {
  app: App;
  stack: PbsExportStack;
  template: Template;
}

/**
 * Builds the app with `cdk.json`'s context and `pbs` replaced by `config`, its functions as
 * inline stubs (template assertions need no bundles; the real bundling is tested by `cdk synth`).
 */
export function synthesize(config: PbsConfigInput = TEST_CONFIG): SynthesizedApp {
  const { app, stack } = createPbsApp({
    appProps: { context: { ...cdkJsonContext(), pbs: config } },
    codeMode: 'stub',
  });
  return { app, stack, template: Template.fromStack(stack) };
}

/** The CloudFormation logical id of a function of the stack. */
export function functionLogicalId(stack: PbsExportStack, key: FunctionKey): string {
  const cfn = stack.functions[key].function.node.defaultChild;
  if (cfn === undefined) throw new Error(`function ${key} has no CloudFormation resource`);
  return stack.getLogicalId(cfn as Parameters<PbsExportStack['getLogicalId']>[0]);
}

/** The CloudFormation logical id of a construct's default resource. */
export function logicalIdOf(stack: PbsExportStack, construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as Parameters<PbsExportStack['getLogicalId']>[0]);
}

/** Account, region and partition the tests resolve the template's pseudo parameters to. */
export const TEST_ENV = { partition: 'aws', region: 'eu-central-1', account: '123456789012' } as const;

/**
 * The definition of a state machine of the template, its `DefinitionString` resolved: pseudo
 * parameters to {@link TEST_ENV}, `Fn::GetAtt [id, Arn]` to `arnOf(id)`, `Fn::GetAtt [id, Name]`
 * to `id` (other intrinsics are not expected there).
 */
export function stateMachineDefinition(
  template: Template,
  logicalId: string,
  arnOf: (logicalId: string) => string,
): Record<string, unknown> {
  const resource = template.toJSON().Resources?.[logicalId] as
    | { Properties: { DefinitionString: unknown } }
    | undefined;
  if (resource === undefined) throw new Error(`no resource ${logicalId}`);
  const definition = resource.Properties.DefinitionString;
  const parts =
    typeof definition === 'string'
      ? [definition]
      : (definition as { 'Fn::Join': [string, unknown[]] })['Fn::Join'][1];
  const pseudo: Record<string, string> = {
    'AWS::Partition': TEST_ENV.partition,
    'AWS::Region': TEST_ENV.region,
    'AWS::AccountId': TEST_ENV.account,
  };
  const text = parts
    .map((part) => {
      if (typeof part === 'string') return part;
      const ref = (part as { Ref?: string }).Ref;
      if (ref !== undefined && pseudo[ref] !== undefined) return pseudo[ref];
      const getAtt = (part as { 'Fn::GetAtt'?: [string, string] })['Fn::GetAtt'];
      if (getAtt?.[1] === 'Arn') return arnOf(getAtt[0]);
      if (getAtt?.[1] === 'Name') return getAtt[0];
      throw new Error(`unexpected ${JSON.stringify(part)}`);
    })
    .join('');
  return JSON.parse(text) as Record<string, unknown>;
}
