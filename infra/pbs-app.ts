import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CONTEXT_KEY, parsePbsConfig } from './config.ts';
import type { FunctionCodeMode } from './pbs-function.ts';
import { PbsExportStack } from './stack.ts';

/** The stack's construct id (and CloudFormation stack name). */
export const STACK_ID = 'PbsExport';

/** Options of {@link createPbsApp}. */
export interface PbsAppOptions {
  /** Passed to `App` (tests give the context of `cdk.json` here). */
  appProps?: AppProps;
  /** @default 'bundle' */
  codeMode?: FunctionCodeMode;
}

/**
 * The CDK app: the validated config from the `pbs` context, the stack in the CLI's default
 * account and region, and cdk-nag's AWS Solutions checks as a validation plugin (synthesis
 * fails on any finding that is not acknowledged).
 */
export function createPbsApp(options: PbsAppOptions = {}): { app: App; stack: PbsExportStack } {
  const app = new App(options.appProps);
  const config = parsePbsConfig(app.node.tryGetContext(CONTEXT_KEY));
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = process.env.CDK_DEFAULT_REGION;
  const stack = new PbsExportStack(app, STACK_ID, {
    config,
    codeMode: options.codeMode ?? 'bundle',
    description: 'pbs-export: CSV/XLSX exports of Portfolio Balance Service portfolios',
    ...(account && region ? { env: { account, region } } : {}),
  });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { verbose: true }));
  return { app, stack };
}
