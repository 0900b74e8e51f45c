/** Shared setup of the infra tests: the app built as `cdk synth` builds it, with a test config. */
import type { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { PbsConfigInput } from '../../infra/config.ts';
import { cdkJsonContext } from '../../infra/definitions.ts';
import { createPbsApp } from '../../infra/pbs-app.ts';
import type { PbsExportStack } from '../../infra/stack.ts';

/** The test secret ARN of a profile (full ARN with its 6-character suffix). */
export const secretArn = (profile: string) =>
  `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${profile}-AbCdEf`;

/** A config with values other than the defaults, so that each one can be seen to arrive. */
export const TEST_CONFIG = {
  profiles: {
    demo: { secretArn: secretArn('demo'), timeZone: 'UTC', monthly: true },
    acme: {
      secretArn: secretArn('acme'),
      timeZone: 'Europe/Berlin',
      monthly: true,
      gains: { taxRules: 'de', transferFee: 'basis' },
    },
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
  gains: { transferInBasis: 'zero', transferToleranceHours: 12 },
} satisfies PbsConfigInput;

export { cdkJsonContext } from '../../infra/definitions.ts';

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

/** Account, region and partition the tests resolve the template's pseudo parameters to. */
export {
  functionLogicalId,
  LOCAL_ENV as TEST_ENV,
  logicalIdOf,
  stateMachineDefinition,
} from '../../infra/definitions.ts';
