import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

/**
 * Acknowledges a cdk-nag finding on `scope` and everything under it, with the reason (cdk-nag 3
 * reads CDK's own acknowledgements). `id` is a rule (`AwsSolutions-S1`) or one finding of it
 * (`AwsSolutions-IAM5[Resource::*]`).
 */
export function acknowledge(scope: IConstruct, id: string, reason: string): void {
  Validations.of(scope).acknowledge({ id, reason });
}
