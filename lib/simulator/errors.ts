/** An error answer of the simulator: status, GAPS.md error code and message, extra headers. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/** A command-line mistake of `bin/simulator.ts`; `flag` names the offending flag. */
export class CliUsageError extends Error {
  constructor(
    readonly flag: string,
    message: string,
  ) {
    super(message);
    this.name = 'CliUsageError';
  }
}

/** A 400 for a bad query parameter; the message starts with the parameter's name. */
export function badParameter(name: string, reason: string): HttpError {
  return new HttpError(400, 'invalid_parameter', `${name}: ${reason}`);
}

/** The GAPS.md error body: `{"error":{"code","message"}}`. */
export function errorBody(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}
