/**
 * Every failure the service answers with, as a named class. Each maps to one HTTP status and one
 * stable machine code; the HTTP layer turns them into the error body of DESIGN.md in one place.
 */
export type FieldErrors = Record<string, string[]>;

/**
 * A field map with no prototype: field names come from clients, and on a plain object `__proto__`
 * or `constructor` would read as something already there (a 500, or an error lost).
 */
export function emptyFieldErrors(): FieldErrors {
  return Object.create(null) as FieldErrors;
}

export class ServiceError extends Error {
  readonly status: number = 500;
  readonly code: string = 'internal_error';
  /** Extra top-level fields of the error body (e.g. `batch_id` of 7.2). */
  readonly extra: Record<string, unknown> = {};
  readonly headers: Record<string, string> = {};
}

function define(status: number, code: string, defaultMessage: string) {
  return class extends ServiceError {
    override readonly status = status;
    override readonly code = code;
    constructor(message: string = defaultMessage, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
      super(message);
      Object.assign(this.extra, extra);
      Object.assign(this.headers, headers);
    }
  };
}

export class BadRequest extends define(400, 'bad_request', 'The request is malformed.') {}
export class Unauthorized extends define(401, 'unauthorized', 'A valid bearer token is required.') {}
export class Forbidden extends define(403, 'forbidden', 'This token is not allowed to do that.') {}
export class NotFound extends define(404, 'not_found', 'Not found.') {}
export class MethodNotAllowed extends define(405, 'method_not_allowed', 'Method not allowed.') {}
export class Conflict extends define(409, 'conflict', 'The request conflicts with the current state.') {}
export class PayloadTooLarge extends define(413, 'payload_too_large', 'The request body is too large.') {}
export class UnsupportedMediaType extends define(415, 'unsupported_media_type', 'Unsupported content type.') {}
export class Locked extends define(423, 'locked', 'The resource is locked.') {}
export class TooManyRequests extends define(429, 'rate_limited', 'Too many requests.') {}
export class Gone extends define(410, 'gone', 'This no longer exists.') {}
export class Unavailable extends define(503, 'unavailable', 'The service is busy; retry shortly.') {}
/** An upstream service (a carrier's API) failed or answered what cannot be used. */
export class BadGateway extends define(502, 'bad_gateway', 'An upstream service failed.') {}
/** An upstream service (a carrier's API) did not answer in time. */
export class GatewayTimeout extends define(504, 'gateway_timeout', 'An upstream service did not answer in time.') {}

/** The most failing fields a 422 lists: its answer stays a few hundred KB, far below Lambda's 6 MB. */
export const maxFieldErrors = 1000;

/**
 * A 422 with one entry per failing field, the first `maxFieldErrors` of them in the order found;
 * beyond that, `errors_total` says how many fields failed and the message says how to see the rest.
 */
export class ValidationFailed extends ServiceError {
  override readonly status = 422;
  override readonly code = 'validation_failed';
  readonly errors: FieldErrors;
  constructor(errors: FieldErrors, message = 'The given data was invalid.') {
    const fields = Object.keys(errors);
    const over = fields.length > maxFieldErrors;
    super(over ? `${message} The first ${maxFieldErrors} of ${fields.length} failing fields are listed: correct them and send again to see the rest.` : message);
    if (!over) {
      this.errors = errors;
      return;
    }
    const shown = emptyFieldErrors();
    for (const field of fields.slice(0, maxFieldErrors)) shown[field] = errors[field];
    this.errors = shown;
    this.extra.errors_total = fields.length;
  }
}

/** Same shape, other status/code: for 422s that carry their own error code (e.g. `unknown_batch`). */
export class Unprocessable extends define(422, 'unprocessable', 'The request cannot be processed.') {}

const byStatus: Record<number, new (message?: string, extra?: Record<string, unknown>, headers?: Record<string, string>) => ServiceError> = {
  400: BadRequest,
  401: Unauthorized,
  403: Forbidden,
  404: NotFound,
  405: MethodNotAllowed,
  409: Conflict,
  410: Gone,
  413: PayloadTooLarge,
  415: UnsupportedMediaType,
  422: Unprocessable,
  423: Locked,
  429: TooManyRequests,
};

/** The named error for a status decided elsewhere (the authorizer's verdict). */
export function errorForStatus(status: number, message: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}): ServiceError {
  const Cls = byStatus[status];
  return Cls ? new Cls(message, extra, headers) : new ServiceError(message);
}
