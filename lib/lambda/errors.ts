/** Typed errors of the Lambda wiring (configuration, secrets). None carries a secret. */
import { PbsExportError } from '../errors.ts';

/** The function's configuration (environment) is missing or invalid; names the variable. */
export class ConfigError extends PbsExportError {
  readonly variable: string;

  constructor(variable: string, reason: string, options?: { cause?: unknown }) {
    super('config_invalid', `${variable}: ${reason}`, options);
    this.variable = variable;
  }
}

/** A profile's secret could not be read or is not the expected JSON (its value is never quoted). */
export class SecretError extends PbsExportError {
  constructor(profile: string, reason: string, options?: { cause?: unknown }) {
    super('secret_invalid', `secret of profile "${profile}": ${reason}`, options);
  }
}
