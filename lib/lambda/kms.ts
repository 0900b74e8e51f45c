/** The KMS calls the finish's signer makes (`lib/proof/kms-signer.ts`), through the SDK's client. */
import { GetPublicKeyCommand, type KMSClient, SignCommand } from '@aws-sdk/client-kms';
import type { KmsSigningApi } from '../proof/index.ts';

/** `GetPublicKey` and `Sign` (a SHA-256 digest, ECDSA_SHA_256) with `client`. */
export function kmsSigningApi(client: KMSClient): KmsSigningApi {
  return {
    async getPublicKey(keyId) {
      const answer = await client.send(new GetPublicKeyCommand({ KeyId: keyId }));
      if (answer.PublicKey === undefined) throw new Error('GetPublicKey answered no key');
      return answer.PublicKey;
    },
    async signDigest(keyId, digest) {
      const answer = await client.send(
        new SignCommand({
          KeyId: keyId,
          Message: digest,
          MessageType: 'DIGEST',
          SigningAlgorithm: 'ECDSA_SHA_256',
        }),
      );
      if (answer.Signature === undefined) throw new Error('Sign answered no signature');
      return answer.Signature;
    },
  };
}
