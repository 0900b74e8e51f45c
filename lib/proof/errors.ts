import { PbsExportError } from '../errors.ts';

/** A signing key that cannot be used: unreadable, not a private key, or not ECDSA P-256. */
export class SigningKeyError extends PbsExportError {
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super('signing_key', `${file}: ${reason}`, options);
    this.file = file;
  }
}

/** The manifest could not be signed (the key service refused or failed). */
export class SigningError extends PbsExportError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('signing_failed', `could not sign the manifest: ${reason}`, options);
  }
}

/** What `verify` was pointed at cannot be read as report sets (no such folder, no manifest anywhere). */
export class VerifyTargetError extends PbsExportError {
  readonly target: string;

  constructor(target: string, reason: string, options?: { cause?: unknown }) {
    super('verify_target', `${target}: ${reason}`, options);
    this.target = target;
  }
}
