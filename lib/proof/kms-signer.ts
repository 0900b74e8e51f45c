/**
 * The deployed finish's signer: the stack's KMS key (ECC_NIST_P256, SIGN_VERIFY) signs the
 * SHA-256 digest of each manifest (`MessageType: DIGEST`, `ECDSA_SHA_256`); KMS returns the DER
 * signature `openssl dgst -sha256 -verify` reads. The private key never leaves KMS.
 */
import { createHash, createPublicKey } from 'node:crypto';
import { SigningError } from './errors.ts';
import type { ManifestSigner } from './signing.ts';

/** The two KMS calls the signer makes (the SDK client's, or a test's). */
export interface KmsSigningApi {
  /** `GetPublicKey`: the key's DER SubjectPublicKeyInfo. */
  getPublicKey(keyId: string): Promise<Uint8Array>;
  /** `Sign` with `MessageType: DIGEST`, `SigningAlgorithm: ECDSA_SHA_256`: the DER signature. */
  signDigest(keyId: string, digest: Uint8Array): Promise<Uint8Array>;
}

/** A signer for the KMS key `keyId` (its ARN), its public key read once. */
export async function kmsSigner(kms: KmsSigningApi, keyId: string): Promise<ManifestSigner> {
  let publicKeyPem: string;
  try {
    const der = Buffer.from(await kms.getPublicKey(keyId));
    publicKeyPem = createPublicKey({ key: der, format: 'der', type: 'spki' })
      .export({ type: 'spki', format: 'pem' })
      .toString();
  } catch (error) {
    throw new SigningError(`KMS gave no usable public key for ${keyId}`, { cause: error });
  }
  return {
    publicKeyPem,
    signer: keyId,
    async sign(bytes) {
      const digest = createHash('sha256').update(bytes).digest();
      try {
        return Buffer.from(await kms.signDigest(keyId, digest));
      } catch (error) {
        throw new SigningError(`KMS refused to sign with ${keyId}`, { cause: error });
      }
    },
  };
}
