/**
 * The key that signs each published manifest (README: Proof): an asymmetric KMS key (ECC NIST
 * P-256, SIGN_VERIFY) whose key policy lets only the finish function's role sign. The account can
 * administer the key and anyone in it may read its public key, which the finish also publishes
 * beside the sets (`signing/<fingerprint>.pem`); no IAM policy can grant `kms:Sign`, because the
 * key policy does not delegate it to the account.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

/** Administration of the key by the account: everything but using it to sign or verify. */
const ADMIN_ACTIONS = [
  'kms:Create*',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:GetKeyPolicy',
  'kms:GetPublicKey',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
];

/** The manifest signing key, signable by `signer` only. */
export class ManifestSigningKey extends Construct {
  readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: { signer: iam.IRole }) {
    super(scope, id);
    const account = new iam.AccountRootPrincipal();
    this.key = new kms.Key(this, 'Key', {
      description: 'pbs-export: signs the SHA-256 digest of each published manifest (pbs-export verify)',
      keySpec: kms.KeySpec.ECC_NIST_P256,
      keyUsage: kms.KeyUsage.SIGN_VERIFY,
      // Signatures made with it must stay checkable after the stack is gone.
      removalPolicy: RemovalPolicy.RETAIN,
      policy: new iam.PolicyDocument({
        statements: [
          new iam.PolicyStatement({
            sid: 'AccountAdministersTheKey',
            principals: [account],
            actions: ADMIN_ACTIONS,
            resources: ['*'],
          }),
          new iam.PolicyStatement({
            sid: 'OnlyTheFinishSigns',
            principals: [props.signer],
            actions: ['kms:Sign', 'kms:GetPublicKey'],
            resources: ['*'],
          }),
        ],
      }),
    });
  }
}
