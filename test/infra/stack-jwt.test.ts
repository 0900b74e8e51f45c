import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
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

  it('requires the JWT on every route instead of IAM', () => {
    const routes = resourcesOfType('AWS::ApiGatewayV2::Route').map((route) => route.Properties);
    expect(routes).toHaveLength(3);
    for (const route of routes) {
      expect(route).toMatchObject({ AuthorizationType: 'JWT', AuthorizerId: { Ref: expect.any(String) } });
    }
  });
});
