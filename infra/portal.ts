import { Aws, Duration, Fn, RemovalPolicy } from 'aws-cdk-lib';
import { HttpUserPoolAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import * as cognito from 'aws-cdk-lib/aws-cognito';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import type { PortalSignInSettings } from '../lib/lambda/index.ts';
import { acknowledge } from './nag.ts';

/** The claim of a Cognito access token that lists the person's groups (one group per profile). */
export const COGNITO_GROUPS_CLAIM = 'cognito:groups';

/** Scopes the portal asks for (and its Cognito app client allows). */
export const PORTAL_SCOPES = ['openid', 'email'] as const;

/** Properties of {@link PortalSignIn}. */
export interface PortalSignInProps {
  /** The registered profiles: one group each. */
  readonly profiles: readonly string[];
  /** The portal's URL (`{API}/portal`): the sign-in returns to `{portalUrl}/callback`. */
  readonly portalUrl: string;
  /** Prefix of the hosted sign-in domain. @default `pbs-export-{account id}` */
  readonly domainPrefix?: string | undefined;
}

/**
 * The portal's sign-in when no external JWT issuer is configured: a Cognito user pool (no
 * self sign-up: an administrator invites each accountant; MFA required), its hosted sign-in
 * domain, one public app client for the portal (authorization code flow with PKCE, no secret,
 * no other flow) and one group per registered profile, whose members may use that profile.
 */
export class PortalSignIn extends Construct {
  readonly userPool: cognito.UserPool;
  readonly client: cognito.UserPoolClient;
  readonly domain: cognito.UserPoolDomain;
  readonly groups: cognito.CfnUserPoolGroup[];

  constructor(scope: Construct, id: string, props: PortalSignInProps) {
    super(scope, id);
    this.userPool = new cognito.UserPool(this, 'Users', {
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      autoVerify: { email: true },
      mfa: cognito.Mfa.REQUIRED,
      mfaSecondFactor: { otp: true, sms: false },
      passwordPolicy: {
        minLength: 12,
        requireLowercase: true,
        requireUppercase: true,
        requireDigits: true,
        requireSymbols: true,
        tempPasswordValidity: Duration.days(3),
      },
      accountRecovery: cognito.AccountRecovery.EMAIL_ONLY,
      userInvitation: {
        emailSubject: 'Your access to the pbs-export reports',
        emailBody:
          'You can now sign in to the pbs-export reports with {username} and the temporary password {####}. You will set your own password and an authenticator app at first sign-in.',
      },
      featurePlan: cognito.FeaturePlan.ESSENTIALS,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    for (const rule of ['AwsSolutions-COG3', 'AwsSolutions-COG8']) {
      acknowledge(
        this.userPool,
        rule,
        'Threat protection needs the Plus feature plan (priced per user); sign-in is invitation only with MFA required.',
      );
    }
    this.domain = this.userPool.addDomain('SignIn', {
      cognitoDomain: { domainPrefix: props.domainPrefix ?? Fn.join('-', ['pbs-export', Aws.ACCOUNT_ID]) },
    });
    this.client = this.userPool.addClient('Portal', {
      generateSecret: false,
      authFlows: {},
      preventUserExistenceErrors: true,
      supportedIdentityProviders: [cognito.UserPoolClientIdentityProvider.COGNITO],
      oAuth: {
        flows: { authorizationCodeGrant: true },
        scopes: PORTAL_SCOPES.map((scope) => cognito.OAuthScope.custom(scope)),
        callbackUrls: [`${props.portalUrl}/callback`],
        logoutUrls: [`${props.portalUrl}/sign-in`],
      },
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.hours(12),
      enableTokenRevocation: true,
    });
    // Sign-in happens on the hosted pages only: no password or SRP flow for this client (an empty
    // list would let Cognito enable its defaults, SRP and custom auth among them).
    (this.client.node.defaultChild as cognito.CfnUserPoolClient).explicitAuthFlows = [
      'ALLOW_REFRESH_TOKEN_AUTH',
    ];
    this.groups = props.profiles.map(
      (profile) =>
        new cognito.CfnUserPoolGroup(this, `Group-${profile}`, {
          userPoolId: this.userPool.userPoolId,
          groupName: profile,
          description: `Members may use the pbs-export profile ${profile}`,
        }),
    );
  }

  /** The API's JWT authorizer for this pool's portal client (access tokens: `client_id`). */
  authorizer(): HttpUserPoolAuthorizer {
    return new HttpUserPoolAuthorizer('Cognito', this.userPool, { userPoolClients: [this.client] });
  }

  /** The portal's sign-in settings (`PBS_PORTAL_SIGN_IN`). */
  signInSettings(): PortalSignInSettings {
    const base = this.domain.baseUrl();
    return {
      authorizeUrl: `${base}/oauth2/authorize`,
      tokenUrl: `${base}/oauth2/token`,
      clientId: this.client.userPoolClientId,
      scopes: [...PORTAL_SCOPES],
    };
  }
}

/** Properties of {@link ReadyNotices}. */
export interface ReadyNoticesProps {
  /** Email addresses by profile: each address gets the notices of its profiles only. */
  readonly subscribers: Readonly<Record<string, readonly string[]>>;
}

/**
 * The deployment's topic of ended exports: the finish and fail functions publish a notice with a
 * `profile` message attribute; each email subscription's filter policy lists its profiles.
 * Encrypted with the account's SNS key, TLS only.
 */
export class ReadyNotices extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: ReadyNoticesProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', {
      displayName: 'pbs-export reports',
      enforceSSL: true,
      masterKey: kms.Alias.fromAliasName(this, 'SnsKey', 'alias/aws/sns'),
    });
    const profilesOf = new Map<string, string[]>();
    for (const [profile, emails] of Object.entries(props.subscribers)) {
      for (const email of emails) profilesOf.set(email, [...(profilesOf.get(email) ?? []), profile]);
    }
    for (const [email, profiles] of profilesOf) {
      this.topic.addSubscription(
        new subscriptions.EmailSubscription(email, {
          filterPolicy: { profile: sns.SubscriptionFilter.stringFilter({ allowlist: profiles.sort() }) },
        }),
      );
    }
  }
}
