/**
 * The state machines' definitions as the stack synthesizes them, resolved to plain ASL JSON, for
 * running them off AWS (`npm run serve` and the workflow tests, through aws-local-stepfunctions).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import type { PbsConfigInput } from './config.ts';
import { createPbsApp } from './pbs-app.ts';
import { PROJECT_ROOT } from './pbs-function.ts';
import type { FunctionKey, PbsExportStack } from './stack.ts';

/** Account, region and partition the definitions' pseudo parameters resolve to off AWS. */
export const LOCAL_ENV = { partition: 'aws', region: 'eu-central-1', account: '123456789012' } as const;

/** The ARN a function's logical id stands for off AWS. */
export const localLambdaArn = (logicalId: string) =>
  `arn:aws:lambda:${LOCAL_ENV.region}:${LOCAL_ENV.account}:function:${logicalId}`;

/** The context of `cdk.json` (feature flags and the sample config `pbs`). */
export function cdkJsonContext(): Record<string, unknown> {
  const cdkJson = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  return cdkJson.context;
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

/**
 * The definition of a state machine of the template, its `DefinitionString` resolved: pseudo
 * parameters to {@link LOCAL_ENV}, `Fn::GetAtt [id, Arn]` to `arnOf(id)`, `Fn::GetAtt [id, Name]`
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
    'AWS::Partition': LOCAL_ENV.partition,
    'AWS::Region': LOCAL_ENV.region,
    'AWS::AccountId': LOCAL_ENV.account,
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

/** The export state machine as deployed: its ASL definition and the ARNs of its four tasks. */
export interface ExportMachine {
  definition: Record<string, unknown>;
  taskArns: Record<'plan' | 'fetchShard' | 'finish' | 'fail', string>;
}

/**
 * Synthesizes the stack (functions as stubs: no bundling) with `cdk.json`'s sample config, with
 * `overrides` applied, and returns the export state machine's definition.
 */
export function synthesizeExportMachine(overrides: Partial<PbsConfigInput> = {}): ExportMachine {
  const context = cdkJsonContext();
  const pbs = { ...(context.pbs as PbsConfigInput), ...overrides };
  const { stack } = createPbsApp({ appProps: { context: { ...context, pbs } }, codeMode: 'stub' });
  const template = Template.fromStack(stack);
  const arn = (key: FunctionKey) => localLambdaArn(functionLogicalId(stack, key));
  return {
    definition: stateMachineDefinition(
      template,
      logicalIdOf(stack, stack.exportStateMachine),
      localLambdaArn,
    ),
    taskArns: { plan: arn('plan'), fetchShard: arn('fetchShard'), finish: arn('finish'), fail: arn('fail') },
  };
}
