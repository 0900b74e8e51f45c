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

/**
 * A CSV text that is not well-formed (a quote not closed, a quote inside an unquoted field, text
 * after a closing quote). `line` is the file's line (1-based) and `field` the field's position in
 * its record (0-based); `record` is how many records were read before it (the header counted).
 */
export class CsvSyntaxError extends PbsExportError {
  readonly line: number;
  readonly field: number;
  readonly record: number;
  readonly reason: string;

  constructor(line: number, field: number, record: number, reason: string, options?: { cause?: unknown }) {
    super('csv_syntax', `line ${line}, field ${field + 1}: ${reason}`, options);
    this.line = line;
    this.field = field;
    this.record = record;
    this.reason = reason;
  }
}
