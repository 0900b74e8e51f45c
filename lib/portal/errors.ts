/**
 * Typed errors of the portal. Each is answered by the portal as a page (HTML, escaped), never
 * as the API's JSON: a person reads them.
 */
import { PbsExportError } from '../errors.ts';

/** The API answered the portal's own call in a way it cannot show (a bug or an outage). */
export class PortalApiError extends PbsExportError {
  constructor(
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super('portal_api', message, options);
  }
}

/** A page that asks for data was requested without a sign-in token (`Authorization: Bearer`). */
export class SignInRequiredError extends PbsExportError {
  constructor() {
    super('sign_in_required', 'sign in to see this page');
  }
}

/** The development sign-in was asked for something it does not issue. */
export class DevSignInError extends PbsExportError {
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super('dev_sign_in', `${field}: ${reason}`);
  }
}
