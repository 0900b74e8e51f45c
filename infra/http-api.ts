import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpIamAuthorizer, HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledge } from './nag.ts';

/** Properties of {@link ReportsApi}. */
export interface ReportsApiProps {
  readonly handler: lambda.IFunction;
  /** JWT authorizer settings; without them every route requires IAM (SigV4) authorization. */
  readonly jwt?: { issuer: string; audience: string[] } | undefined;
  /** An authorizer for every route instead (the portal's Cognito user pool); wins over `jwt`. */
  readonly authorizer?: apigw.IHttpRouteAuthorizer | undefined;
  /**
   * Serve the portal: its pages (`GET /portal`, `GET /portal/{proxy+}`: shells and static files
   * without data) need no authorization, its views (`/portal/view/{proxy+}`) the API's.
   */
  readonly portal?: boolean;
  readonly logRetention: logs.RetentionDays;
}

/**
 * The HTTP API of on-demand exports: `POST /reports`, `GET /reports/{jobId}`, `GET /reports`,
 * `POST /reports/{jobId}/archive`, `GET /rates`, the close routes,
 * all proxied to one function (payload format 2.0), IAM or JWT authorization, access logs.
 */
export class ReportsApi extends Construct {
  readonly api: apigw.HttpApi;
  readonly stage: apigw.HttpStage;
  readonly accessLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ReportsApiProps) {
    super(scope, id);

    const authorizer =
      props.authorizer ??
      (props.jwt
        ? new HttpJwtAuthorizer('Jwt', props.jwt.issuer, { jwtAudience: props.jwt.audience })
        : new HttpIamAuthorizer());
    this.api = new apigw.HttpApi(this, 'Api', {
      description: 'pbs-export: on-demand report exports',
      defaultAuthorizer: authorizer,
      createDefaultStage: false,
    });

    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = new apigw.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            caller: '$context.identity.caller',
            user: '$context.identity.user',
            jwtSubject: '$context.authorizer.claims.sub',
            requestTime: '$context.requestTime',
            routeKey: '$context.routeKey',
            status: '$context.status',
            responseLength: '$context.responseLength',
            integrationError: '$context.integrationErrorMessage',
            authorizerError: '$context.authorizer.error',
          }),
        ),
      },
      throttle: { rateLimit: 20, burstLimit: 40 },
    });

    const integration = new HttpLambdaIntegration('Reports', props.handler, {
      payloadFormatVersion: apigw.PayloadFormatVersion.VERSION_2_0,
    });
    this.api.addRoutes({
      path: '/reports',
      methods: [apigw.HttpMethod.POST, apigw.HttpMethod.GET],
      integration,
    });
    this.api.addRoutes({ path: '/reports/{jobId}', methods: [apigw.HttpMethod.GET], integration });
    // "Download all": builds a set's zip and answers a link to it (lib/http-api/archive-route.ts).
    this.api.addRoutes({ path: '/reports/{jobId}/archive', methods: [apigw.HttpMethod.POST], integration });
    // Closed periods: close, reopen, list (lib/http-api/close-route.ts).
    this.api.addRoutes({
      path: '/closes',
      methods: [apigw.HttpMethod.POST, apigw.HttpMethod.GET],
      integration,
    });
    this.api.addRoutes({ path: '/closes/reopen', methods: [apigw.HttpMethod.POST], integration });
    // The rates sources a request's gains.rates may name, by what the bucket keeps (lib/http-api/rates-route.ts).
    this.api.addRoutes({ path: '/rates', methods: [apigw.HttpMethod.GET], integration });
    if (props.portal) {
      for (const path of ['/portal', '/portal/{proxy+}']) {
        const [route] = this.api.addRoutes({
          path,
          methods: [apigw.HttpMethod.GET],
          integration,
          authorizer: new apigw.HttpNoneAuthorizer(),
        });
        if (route) {
          acknowledge(
            route,
            'AwsSolutions-APIG4',
            'Portal pages are shells and static files without data (a navigation carries no token); the views they load take the API authorizer.',
          );
        }
      }
      this.api.addRoutes({
        path: '/portal/view/{proxy+}',
        methods: [apigw.HttpMethod.GET, apigw.HttpMethod.POST],
        integration,
      });
    }
  }

  /** The API's URL (the `$default` stage serves at the root). */
  get url(): string {
    return this.api.apiEndpoint;
  }
}
