/**
 * The portal in the synthesized stack (the default: no external JWT issuer): the pages' routes,
 * the Cognito user pool and its JWT authorizer on the API's routes, the notices topic with
 * per-profile subscriptions, and cdk-nag with all of it.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PbsExportStack } from '../../infra/stack.ts';
import { ENV } from '../../lib/lambda/index.ts';
import { functionLogicalId, logicalIdOf, type SynthesizedApp, synthesize, TEST_CONFIG } from './support.ts';

let synthesized: SynthesizedApp;
let template: Template;
let stack: PbsExportStack;
type Resource = { Type: string; Properties: Record<string, unknown> };
let resources: Record<string, Resource>;

beforeAll(() => {
  synthesized = synthesize({
    ...TEST_CONFIG,
    portal: {
      subscribers: { acme: ['books@acme.example', 'cfo@acme.example'], demo: ['books@acme.example'] },
    },
  });
  ({ template, stack } = synthesized);
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string) => Object.entries(resources).filter(([, resource]) => resource.Type === type);

function environmentOf(key: Parameters<typeof functionLogicalId>[1]): Record<string, unknown> {
  const fn = resources[functionLogicalId(stack, key)];
  return (fn?.Properties.Environment as { Variables: Record<string, unknown> } | undefined)?.Variables ?? {};
}

describe('portal routes and authorizer', () => {
  it("serves the pages without authorization and everything else behind the user pool's JWT authorizer", () => {
    const routes = Object.fromEntries(
      ofType('AWS::ApiGatewayV2::Route').map(([, route]) => [
        route.Properties.RouteKey as string,
        route.Properties.AuthorizationType,
      ]),
    );
    expect(routes).toEqual({
      'GET /reports': 'JWT',
      'POST /reports': 'JWT',
      'GET /reports/{jobId}': 'JWT',
      'POST /reports/{jobId}/archive': 'JWT',
      'GET /closes': 'JWT',
      'POST /closes': 'JWT',
      'POST /closes/reopen': 'JWT',
      'GET /rates': 'JWT',
      'GET /portal': 'NONE',
      'GET /portal/{proxy+}': 'NONE',
      'GET /portal/view/{proxy+}': 'JWT',
      'POST /portal/view/{proxy+}': 'JWT',
    });
  });

  it("checks tokens of the user pool's portal client", () => {
    const poolId = logicalIdOf(stack, stack.portalSignIn?.userPool ?? stack);
    const clientId = logicalIdOf(stack, stack.portalSignIn?.client ?? stack);
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Audience: [{ Ref: clientId }],
        Issuer: {
          'Fn::Join': [
            '',
            ['https://cognito-idp.', { Ref: 'AWS::Region' }, '.amazonaws.com/', { Ref: poolId }],
          ],
        },
      },
    });
  });

  it('reads the profiles from the Cognito groups claim and gives the API the sign-in settings', () => {
    const env = environmentOf('httpApi');
    expect(env[ENV.profilesClaim]).toBe('cognito:groups');
    const signIn = JSON.stringify(env[ENV.portalSignIn]);
    expect(signIn).toContain('/oauth2/authorize');
    expect(signIn).toContain('/oauth2/token');
    expect(signIn).toContain(logicalIdOf(stack, stack.portalSignIn?.client ?? stack));
  });
});

describe('the user pool', () => {
  it('lets only administrators create users and requires MFA and strong passwords', () => {
    template.hasResourceProperties('AWS::Cognito::UserPool', {
      AdminCreateUserConfig: { AllowAdminCreateUserOnly: true },
      MfaConfiguration: 'ON',
      EnabledMfas: ['SOFTWARE_TOKEN_MFA'],
      Policies: {
        PasswordPolicy: Match.objectLike({
          MinimumLength: 12,
          RequireLowercase: true,
          RequireUppercase: true,
          RequireNumbers: true,
          RequireSymbols: true,
        }),
      },
    });
  });

  it('has one public client for the authorization code flow, returning to the portal', () => {
    const clients = ofType('AWS::Cognito::UserPoolClient');
    expect(clients).toHaveLength(1);
    const client = clients[0]?.[1].Properties ?? {};
    expect(client).toMatchObject({
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      GenerateSecret: false,
      SupportedIdentityProviders: ['COGNITO'],
      PreventUserExistenceErrors: 'ENABLED',
    });
    expect(client.ExplicitAuthFlows).toEqual(['ALLOW_REFRESH_TOKEN_AUTH']);
    expect(JSON.stringify(client.CallbackURLs)).toMatch(/"\/portal\/callback"\]/);
  });

  it('has one group per registered profile', () => {
    const groups = ofType('AWS::Cognito::UserPoolGroup').map(([, group]) => group.Properties.GroupName);
    expect(groups.sort()).toEqual(['acme', 'demo', 'empty']);
  });
});

describe('the notices topic', () => {
  it('is encrypted and refuses requests without TLS', () => {
    const [topic] = ofType('AWS::SNS::Topic');
    expect(JSON.stringify(topic?.[1].Properties.KmsMasterKeyId)).toContain(':alias/aws/sns');
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('subscribes each address to its profiles only, by filter policy on the profile attribute', () => {
    const subscriptions = ofType('AWS::SNS::Subscription').map(([, subscription]) => [
      subscription.Properties.Endpoint,
      subscription.Properties.Protocol,
      subscription.Properties.FilterPolicy,
    ]);
    expect(subscriptions.sort()).toEqual([
      ['books@acme.example', 'email', { profile: ['acme', 'demo'] }],
      ['cfo@acme.example', 'email', { profile: ['acme'] }],
    ]);
  });

  it('is told by the finish and fail functions only, which link to the portal', () => {
    const topicId = logicalIdOf(stack, stack.notices?.topic ?? stack);
    const publishers = ofType('AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.PolicyDocument).includes('"sns:Publish"'))
      .map(([, policy]) => JSON.stringify(policy.Properties.Roles));
    expect(publishers).toHaveLength(2);
    expect(publishers.join()).toContain(logicalIdOf(stack, stack.functions.finish.role));
    expect(publishers.join()).toContain(logicalIdOf(stack, stack.functions.fail.role));
    for (const key of ['finish', 'fail'] as const) {
      const env = environmentOf(key);
      expect(env[ENV.notifyTopicArn]).toEqual({ Ref: topicId });
      expect(JSON.stringify(env[ENV.portalUrl])).toMatch(/\/portal"\]\]\}$/);
    }
    for (const key of ['httpApi', 'plan', 'fetchShard', 'monthlyStart'] as const) {
      expect(environmentOf(key)[ENV.notifyTopicArn]).toBeUndefined();
    }
  });
});

describe('cdk-nag with the portal', () => {
  it('returns no AwsSolutions finding that is not acknowledged', () => {
    const report = new AwsSolutionsChecks(synthesized.app).validateScope(synthesized.app);
    expect(report.violations.map((violation) => violation.ruleName)).toEqual([]);
  });
});
