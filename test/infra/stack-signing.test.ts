/**
 * The manifest signing key in the stack (README: Proof): ECC NIST P-256 for SIGN_VERIFY, kept when
 * the stack goes, with a key policy under which only the finish function's role can sign (the
 * account administers it but is not given kms:Sign, so no IAM policy can grant it), and its ARN in
 * the finish function's environment only.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { PbsExportStack } from '../../infra/stack.ts';
import { ENV } from '../../lib/lambda/index.ts';
import { functionLogicalId, synthesize } from './support.ts';

type Resources = Record<
  string,
  { Type: string; Properties: Record<string, unknown>; DeletionPolicy?: string }
>;
interface Statement {
  Sid?: string;
  Effect: string;
  Principal: { AWS: unknown };
  Action: string | string[];
}

let resources: Resources;
let stack: PbsExportStack;
beforeAll(() => {
  const synthesized = synthesize();
  stack = synthesized.stack;
  resources = synthesized.template.toJSON().Resources as Resources;
});

const asArray = <T>(value: T | T[]): T[] => (Array.isArray(value) ? value : [value]);

function signingKey(): [string, Resources[string]] {
  const keys = Object.entries(resources).filter(([, resource]) => resource.Type === 'AWS::KMS::Key');
  const signing = keys.filter(([, resource]) => resource.Properties.KeyUsage === 'SIGN_VERIFY');
  expect(signing).toHaveLength(1);
  return signing[0] as [string, Resources[string]];
}

/** Whether `action` (e.g. `kms:Sign`) is among the statement's actions, wildcards included. */
function allows(statement: Statement, action: string): boolean {
  return asArray(statement.Action).some((granted) =>
    new RegExp(`^${granted.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 'i').test(action),
  );
}

describe('the manifest signing key', () => {
  it('is an ECC NIST P-256 key for signing, retained when the stack is deleted', () => {
    const [, key] = signingKey();
    expect(key.Properties.KeySpec).toBe('ECC_NIST_P256');
    expect(key.DeletionPolicy).toBe('Retain');
  });

  it('lets only the finish function’s role sign: no other principal has kms:Sign', () => {
    const [, key] = signingKey();
    const statements = (key.Properties.KeyPolicy as { Statement: Statement[] }).Statement;
    const signers = statements.filter(
      (statement) => statement.Effect === 'Allow' && allows(statement, 'kms:Sign'),
    );
    expect(signers).toHaveLength(1);
    const finishRole = (
      (resources[functionLogicalId(stack, 'finish')] as Resources[string]).Properties.Role as {
        'Fn::GetAtt': string[];
      }
    )['Fn::GetAtt'][0];
    expect(signers[0]?.Principal.AWS).toEqual({ 'Fn::GetAtt': [finishRole, 'Arn'] });
    // The account administers the key, and is not given any use of it.
    const account = statements.find((statement) => statement.Sid === 'AccountAdministersTheKey') as Statement;
    expect(allows(account, 'kms:ScheduleKeyDeletion')).toBe(true);
    for (const use of ['kms:Sign', 'kms:Verify', 'kms:Encrypt']) expect(allows(account, use)).toBe(false);
  });

  it('is named to the finish function only', () => {
    const [keyId] = signingKey();
    const holders = Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')
      .filter(([, resource]) => {
        const variables = (
          resource.Properties.Environment as { Variables?: Record<string, unknown> } | undefined
        )?.Variables;
        return variables?.[ENV.signingKeyArn] !== undefined;
      });
    expect(holders.map(([id]) => id)).toEqual([functionLogicalId(stack, 'finish')]);
    const variables = (
      (holders[0] as [string, Resources[string]])[1].Properties.Environment as {
        Variables: Record<string, unknown>;
      }
    ).Variables;
    expect(variables[ENV.signingKeyArn]).toEqual({ 'Fn::GetAtt': [keyId, 'Arn'] });
  });
});
