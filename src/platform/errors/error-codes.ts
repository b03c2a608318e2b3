/** Every error code the API answers with, and its HTTP status. */
export const ERROR_STATUS = {
  VALIDATION_ERROR: 400,
  MALFORMED_BODY: 400,
  /** Not HTTP Node can parse (bad request line, bad header syntax); answered before any routing. */
  MALFORMED_REQUEST: 400,
  TOO_MANY_RECIPIENTS: 400,
  MESSAGE_TOO_LONG: 400,
  INVALID_CALLBACK_URL: 400,
  MISSING_API_KEY: 401,
  INVALID_API_KEY: 401,
  API_KEY_EXPIRED: 401,
  INVALID_CREDENTIALS: 401,
  INSUFFICIENT_BALANCE: 402,
  /** The request would cross its key's or its account's daily spend limit. */
  SPEND_LIMIT_EXCEEDED: 402,
  IP_NOT_ALLOWED: 403,
  ACCOUNT_SUSPENDED: 403,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  /** The request head or body did not arrive within HTTP_HEADERS_TIMEOUT_MS / HTTP_REQUEST_TIMEOUT_MS. */
  REQUEST_TIMEOUT: 408,
  DUPLICATE_REFERENCE: 409,
  /** A template name already used in the account. */
  DUPLICATE_TEMPLATE_NAME: 409,
  /** A username another account already has (a new sub-account). */
  DUPLICATE_USERNAME: 409,
  /** A reschedule when no message of the request is still SCHEDULED. */
  NOT_RESCHEDULABLE: 409,
  /** An Idempotency-Key whose first request is still being processed. */
  REQUEST_IN_PROGRESS: 409,
  /** An account that has every webhook endpoint it may have. */
  WEBHOOK_LIMIT_REACHED: 409,
  /** An Idempotency-Key whose first answer carried a secret (a new API key): shown once, never replayed. */
  SECRET_SHOWN_ONCE: 409,
  /** A check of a verification that is no longer pending (approved, expired, canceled, out of attempts). */
  VERIFICATION_CLOSED: 409,
  PAYLOAD_TOO_LARGE: 413,
  /** An Idempotency-Key used again with another body (or on another route). */
  IDEMPOTENCY_KEY_REUSED: 422,
  /** A verification whose recipient the send pipeline refused (invalid, opted out, no route, …). */
  RECIPIENT_REJECTED: 422,
  UNSUPPORTED_MEDIA_TYPE: 415,
  /** Request line and headers over HTTP_MAX_HEADER_SIZE. */
  HEADERS_TOO_LARGE: 431,
  RATE_LIMITED: 429,
  /** A sixth verification to one number of one account within 10 minutes. */
  TOO_MANY_VERIFICATIONS: 429,
  /** A verification code or auto-reply to a prefix or country the pumping guard has blocked. */
  SUSPECTED_PUMPING: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export interface ErrorDetail {
  field: string;
  message: string;
}
