/**
 * The stack's part of closing: the bucket has S3 Object Lock enabled without a default retention
 * (closed sets are locked one by one at close time, in governance mode), the API may set
 * retention on reports/ and write close records, the finish reads them, no role may bypass a
 * governance retention, and cdk-nag stays clean.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PbsExportStack } from '../../infra/stack.ts';
import { functionLogicalId, logicalIdOf, type SynthesizedApp, synthesize } from '../infra/support.ts';

interface Statement {
  Action: string | string[];
  Resource: unknown;
}
type Resources = Record<string, { Type: string; Properties: Record<string, unknown> }>;

let synthesized: SynthesizedApp;
let stack: PbsExportStack;
let resources: Resources;
beforeAll(() => {
  synthesized = synthesize();
  stack = synthesized.stack;
  resources = synthesized.template.toJSON().Resources as Resources;
});

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

/** The statements of the role of function `key`. */
function statementsOf(key: Parameters<typeof functionLogicalId>[1]): Statement[] {
  const role = JSON.stringify(resources[functionLogicalId(stack, key)]?.Properties.Role);
  const roleId = /"Fn::GetAtt":\["([^"]+)"/.exec(role)?.[1] ?? '';
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement);
}

/** The object prefixes an action is granted on, e.g. `reports/*`. */
function prefixesOf(statements: Statement[], action: string): string[] {
  return statements
    .filter((statement) => asArray(statement.Action).includes(action))
    .flatMap((statement) => asArray(statement.Resource))
    .map((resource) => /\/([a-z_]+\/\*)"/.exec(JSON.stringify(resource))?.[1] ?? JSON.stringify(resource));
}

describe('PbsExportStack closed sets', () => {
  it('enables S3 Object Lock on the reports bucket, with no default retention', () => {
    const bucket = resources[logicalIdOf(stack, stack.bucket)]?.Properties ?? {};
    expect(bucket.ObjectLockEnabled).toBe(true);
    expect((bucket.ObjectLockConfiguration as { Rule?: unknown } | undefined)?.Rule).toBeUndefined();
    expect(bucket.VersioningConfiguration).toEqual({ Status: 'Enabled' });
  });

  it('lets the API set retention on reports/ only, read the lock configuration, and write close records', () => {
    const statements = statementsOf('httpApi');
    expect(prefixesOf(statements, 's3:PutObjectRetention')).toEqual(['reports/*']);
    expect(statements.some((s) => asArray(s.Action).includes('s3:GetBucketObjectLockConfiguration'))).toBe(
      true,
    );
    expect(prefixesOf(statements, 's3:PutObject')).toContain('closes/*');
    expect(prefixesOf(statements, 's3:DeleteObject')).not.toContain('closes/*');
  });

  it('lets the finish read close records and the closed sets and publish restatements, never delete a record', () => {
    const statements = statementsOf('finish');
    expect(prefixesOf(statements, 's3:GetObject')).toEqual(expect.arrayContaining(['closes/*', 'reports/*']));
    expect(prefixesOf(statements, 's3:PutObject')).toContain('restatements/*');
    expect(prefixesOf(statements, 's3:PutObject')).not.toContain('closes/*');
    expect(prefixesOf(statements, 's3:DeleteObject')).not.toContain('closes/*');
  });

  it('grants no role s3:BypassGovernanceRetention', () => {
    const actions = Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::IAM::Policy')
      .flatMap((policy) => (policy.Properties.PolicyDocument as { Statement: Statement[] }).Statement)
      .flatMap((statement) => asArray(statement.Action));
    expect(actions).not.toContain('s3:BypassGovernanceRetention');
  });

  it('returns no unacknowledged cdk-nag finding', () => {
    const report = new AwsSolutionsChecks(synthesized.app).validateScope(synthesized.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
