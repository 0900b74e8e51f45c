import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '../../lib/lambda/index.ts';
import { synthesize, TEST_CONFIG } from './support.ts';

let template: Template;

beforeAll(() => {
  ({ template } = synthesize({
    ...TEST_CONFIG,
    jwt: { issuer: 'https://id.example.com/realms/pbs', audience: ['pbs-export', 'pbs-export-cli'] },
  }));
});

function resourcesOfType(type: string) {
  return Object.values(
    template.toJSON().Resources as Record<string, { Type: string; Properties: Record<string, unknown> }>,
  ).filter((resource) => resource.Type === type);
}

describe('PbsExportStack with a JWT authorizer', () => {
  it('returns a JWT authorizer with the configured issuer and audience', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Authorizer', {
      AuthorizerType: 'JWT',
      IdentitySource: ['$request.header.Authorization'],
      JwtConfiguration: {
        Issuer: 'https://id.example.com/realms/pbs',
        Audience: ['pbs-export', 'pbs-export-cli'],
      },
    });
  });

  it('gives the HTTP API function, and only it, the default profiles claim', () => {
    const functions = resourcesOfType('AWS::Lambda::Function').map(
      (fn) => (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables,
    );
    const claims = functions.map((variables) => variables[ENV.profilesClaim]).filter(Boolean);
    expect(claims).toEqual(['pbs_profiles']);
    expect(
      functions.find((variables) => variables[ENV.profilesClaim] !== undefined)?.[ENV.exportStateMachineArn],
    ).toBeDefined();
  });

  it('requires the JWT on every route instead of IAM', () => {
    const routes = resourcesOfType('AWS::ApiGatewayV2::Route').map((route) => route.Properties);
    expect(routes.map((route) => route.RouteKey).sort()).toEqual([
      'GET /closes',
      'GET /rates',
      'GET /reports',
      'GET /reports/{jobId}',
      'POST /closes',
      'POST /closes/reopen',
      'POST /reports',
      'POST /reports/{jobId}/archive',
    ]);
    for (const route of routes) {
      expect(route).toMatchObject({ AuthorizationType: 'JWT', AuthorizerId: { Ref: expect.any(String) } });
    }
  });
});

describe('PbsExportStack profiles claim', () => {
  function claimsOf(config: Parameters<typeof synthesize>[0]) {
    const resources = Object.values(
      synthesize(config).template.toJSON().Resources as Record<
        string,
        { Type: string; Properties: { Environment?: { Variables: Record<string, unknown> } } }
      >,
    );
    return resources
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map((fn) => fn.Properties.Environment?.Variables[ENV.profilesClaim])
      .filter((claim) => claim !== undefined);
  }

  it('passes a configured claim name to the HTTP API function', () => {
    const jwt = { issuer: 'https://id.example.com', audience: ['pbs'], profilesClaim: 'custom:pbs' };
    expect(claimsOf({ ...TEST_CONFIG, jwt })).toEqual(['custom:pbs']);
  });

  it('passes no claim with IAM authorization or a null claim', () => {
    const jwt = { issuer: 'https://id.example.com', audience: ['pbs'], profilesClaim: null };
    const iam = { ...TEST_CONFIG, portal: { enabled: false } };
    expect([claimsOf(iam), claimsOf({ ...TEST_CONFIG, jwt })]).toEqual([[], []]);
  });

  it("passes the Cognito groups claim with the portal's user pool", () => {
    expect(claimsOf(TEST_CONFIG)).toEqual(['cognito:groups']);
  });
});
