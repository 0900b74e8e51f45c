/**
 * Root of the project's typed error hierarchy. Every error the project throws on purpose extends
 * this class, keeps its `cause`, and never carries a secret, a signature or an API key.
 */
export class PbsExportError extends Error {
  /** Stable, machine-readable kind of the error, e.g. `invalid_argument`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A caller-supplied value is invalid; `field` names it (dotted path for nested fields). */
export class ValidationError extends PbsExportError {
  readonly field: string;
  readonly reason: string;

  constructor(field: string, reason: string, options?: { cause?: unknown }) {
    super('invalid_argument', `${field}: ${reason}`, options);
    this.field = field;
    this.reason = reason;
  }
}

/** The service settings' config file could not be read (missing, a folder, no permission). */
export class ConfigFileUnreadableError extends PbsExportError {
  readonly file: string;

  constructor(file: string, options?: { cause?: unknown }) {
    super('config_unreadable', `cannot read config file ${file}`, options);
    this.file = file;
  }
}
