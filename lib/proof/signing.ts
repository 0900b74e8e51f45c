/**
 * Signed manifests (README: Proof). A set's `manifest.sig` is the DER-encoded ECDSA P-256
 * signature of the SHA-256 of `manifest.json`'s exact bytes: what AWS KMS returns for
 * `Sign(MessageType=DIGEST, SigningAlgorithm=ECDSA_SHA_256)` and what
 * `openssl dgst -sha256 -verify public-key.pem -signature manifest.sig manifest.json` checks.
 * The public key is published at the sink's root under `signing/<fingerprint>.pem`, the
 * fingerprint being the SHA-256 of the key's DER SubjectPublicKeyInfo; the manifest names both.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { SigningKeyError } from './errors.ts';

/** The signature's algorithm, as the manifest names it. */
export const SIGNATURE_ALGORITHM = 'ECDSA_P256_SHA256';
/** Name of the signature file beside `manifest.json`. */
export const SIGNATURE_NAME = 'manifest.sig';

/** What a signed manifest records about its signature (the manifest's `signature`). */
export interface SignatureReference {
  file: typeof SIGNATURE_NAME;
  algorithm: typeof SIGNATURE_ALGORITHM;
  /** The public key's place relative to the sink's root: `signing/<publicKeySha256>.pem`. */
  publicKey: string;
  /** SHA-256 (hex) of the public key's DER SubjectPublicKeyInfo. */
  publicKeySha256: string;
  /** Who holds the private key: a local key file, or the KMS key's ARN. */
  signer: string;
}

/** Signs manifests: a local key file (CLI) or a KMS key (the deployed finish). */
export interface ManifestSigner {
  /** The public key, PEM (SubjectPublicKeyInfo). */
  readonly publicKeyPem: string;
  /** Who holds the private key, recorded in the manifest (never the key itself). */
  readonly signer: string;
  /** The DER ECDSA signature of SHA-256(`bytes`). */
  sign(bytes: Buffer): Promise<Buffer>;
}

/** The manifest's `signature` entry for `signer`. */
export function signatureReference(signer: ManifestSigner): SignatureReference {
  const publicKeySha256 = publicKeyFingerprint(signer.publicKeyPem);
  return {
    file: SIGNATURE_NAME,
    algorithm: SIGNATURE_ALGORITHM,
    publicKey: publicKeyPath(publicKeySha256),
    publicKeySha256,
    signer: signer.signer,
  };
}

/** Where a public key is published, relative to the sink's root. */
export function publicKeyPath(fingerprint: string): string {
  return `signing/${fingerprint}.pem`;
}

/** SHA-256 (hex) of a public key's DER SubjectPublicKeyInfo (the same for its PEM or DER forms). */
export function publicKeyFingerprint(publicKey: string | Buffer | KeyObject): string {
  const key =
    typeof publicKey === 'string' || Buffer.isBuffer(publicKey) ? createPublicKey(publicKey) : publicKey;
  return createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest('hex');
}

/**
 * A signer holding an ECDSA P-256 private key read from `file` (PEM, PKCS#8 or SEC1, unencrypted:
 * `openssl ecparam -name prime256v1 -genkey -noout -out key.pem`).
 *
 * @throws SigningKeyError naming the file when it cannot be read or is another kind of key.
 */
export async function localKeySigner(file: string): Promise<ManifestSigner> {
  let key: KeyObject;
  try {
    key = createPrivateKey(await readFile(file));
  } catch (error) {
    throw new SigningKeyError(file, 'cannot read an unencrypted PEM private key from it', { cause: error });
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new SigningKeyError(file, 'is not an ECDSA P-256 (prime256v1) private key');
  }
  const publicKeyPem = createPublicKey(key).export({ type: 'spki', format: 'pem' }).toString();
  return {
    publicKeyPem,
    signer: `local key ${publicKeyFingerprint(publicKeyPem).slice(0, 16)}`,
    sign: async (bytes) => sign('sha256', bytes, { key, dsaEncoding: 'der' }),
  };
}

/** Whether `signature` (DER ECDSA) signs SHA-256(`bytes`) under `publicKeyPem`. */
export function signatureHolds(bytes: Buffer, signature: Buffer, publicKeyPem: string | Buffer): boolean {
  try {
    return verify('sha256', bytes, { key: createPublicKey(publicKeyPem), dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}
