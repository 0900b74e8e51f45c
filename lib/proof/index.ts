/** Proof of the published sets: signed manifests, sets that chain, and their verification. */
export {
  type BalanceBreak,
  type BalancesAt,
  balanceBreaks,
  closingBalancesOf,
  openingBalancesOf,
  pairCount,
  type RecordedBalance,
} from './balances.ts';
export { findPreviousSet, type PreviousSet, parseManifest, sha256 } from './chain.ts';
export { SigningError, SigningKeyError, VerifyTargetError } from './errors.ts';
export { type KmsSigningApi, kmsSigner } from './kms-signer.ts';
export {
  localKeySigner,
  type ManifestSigner,
  publicKeyFingerprint,
  publicKeyPath,
  SIGNATURE_ALGORITHM,
  SIGNATURE_NAME,
  type SignatureReference,
  signatureHolds,
  signatureReference,
} from './signing.ts';
export { folderSetStore, type SetStore, s3SetStore } from './store.ts';
export {
  type Finding,
  type SetVerdict,
  setsUnder,
  type Verdict,
  type VerifyOptions,
  verifySets,
} from './verify.ts';
