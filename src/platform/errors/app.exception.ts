import { ERROR_STATUS, type ErrorCode, type ErrorDetail } from './error-codes.js';

/**
 * The one exception type the application throws on purpose. The global filter turns it into
 * the error envelope; `headers` are added to the response (WWW-Authenticate,
 * Retry-After).
 */
export class AppException extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppException';
    this.status = ERROR_STATUS[code];
  }

  static validation(details: ErrorDetail[], message = 'The request is not valid.'): AppException {
    return new AppException('VALIDATION_ERROR', message, details);
  }

  /** A body that is JSON but not an object (null, an array, a string, a number). */
  static bodyNotObject(): AppException {
    return AppException.validation(
      [{ field: 'body', message: 'the body must be a JSON object' }],
      'The request body must be a JSON object.',
    );
  }
}
