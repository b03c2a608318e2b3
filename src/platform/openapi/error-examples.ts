import type { ErrorCode, ErrorDetail } from '../errors/error-codes.js';
import * as refusal from '../errors/http-refusals.js';
import { methodNotAllowedMessage } from '../errors/method-not-allowed-message.js';

/**
 * One example body per error code, as the API words it, for the OpenAPI document. Wordings
 * built in platform/ come from the function that builds the real answer; the others copy the
 * feature's sentence, and test/e2e/error-examples.e2e-spec.ts compares them with real answers.
 */
export const ERROR_EXAMPLES: Record<ErrorCode, { message: string; details?: ErrorDetail[] }> = {
  VALIDATION_ERROR: {
    message: 'The request is not valid.',
    details: [{ field: 'to[3]', message: 'INVALID_NUMBER' }],
  },
  MALFORMED_BODY: { message: 'The request body is not valid JSON.' },
  MALFORMED_REQUEST: { message: refusal.MALFORMED_REQUEST_MESSAGE },
  TOO_MANY_RECIPIENTS: {
    message: 'A request may name at most 10000 recipients; this one names 10001.',
    details: [{ field: 'to', message: 'at most 10000 recipients' }],
  },
  MESSAGE_TOO_LONG: {
    message: 'The message needs 11 SMS segments (GSM7); at most 10 are allowed.',
    details: [{ field: 'message', message: '1531 GSM-7 septets, 11 segments' }],
  },
  INVALID_CALLBACK_URL: {
    message: 'callback_url must use http or https.',
    details: [{ field: 'callback_url', message: 'must use http or https' }],
  },
  MISSING_API_KEY: { message: 'An API key is required (X-API-Key, Bearer or Basic).' },
  INVALID_API_KEY: { message: 'The API key is not valid.' },
  API_KEY_EXPIRED: { message: 'The API key has expired.' },
  INVALID_CREDENTIALS: { message: 'The username and password do not match this API key.' },
  INSUFFICIENT_BALANCE: {
    message: 'The sms balance cannot pay for this request: it costs 1.000000 ZMW, the balance is 0.500000.',
    details: [{ field: 'balance', message: 'needed 1.000000, available 0.500000' }],
  },
  SPEND_LIMIT_EXCEEDED: {
    message:
      "This request costs 12.000000 ZMW, more than is left today (UTC) under this API key's daily spend limit of 50.000000 ZMW.",
    details: [{ field: 'daily_limit', message: 'remaining 8.000000 ZMW' }],
  },
  IP_NOT_ALLOWED: { message: 'This API key is not allowed from 203.0.113.9.' },
  ACCOUNT_SUSPENDED: { message: 'The account is suspended.' },
  FORBIDDEN: { message: refusal.CROSS_SITE_MESSAGE },
  NOT_FOUND: { message: 'No such message.' },
  METHOD_NOT_ALLOWED: { message: methodNotAllowedMessage('GET', 'POST') },
  REQUEST_TIMEOUT: { message: refusal.REQUEST_TIMEOUT_MESSAGE },
  DUPLICATE_REFERENCE: {
    message:
      'user_reference_id "inv-2025-0001" was already used for a different sms request (api_reference 1764184470578998353).',
    details: [{ field: 'user_reference_id', message: 'already used with a different body' }],
  },
  DUPLICATE_TEMPLATE_NAME: {
    message: 'A template named "payment-reminder" already exists.',
    details: [{ field: 'name', message: 'already used by another template of this account' }],
  },
  WEBHOOK_LIMIT_REACHED: {
    message: 'This account has 10 webhook endpoints, the most it may have.',
    details: [{ field: 'url', message: 'delete or reuse an endpoint first' }],
  },
  DUPLICATE_USERNAME: {
    message: 'The username "acme-retail" is not available; choose another.',
    details: [{ field: 'username', message: 'not available' }],
  },
  NOT_RESCHEDULABLE: {
    message: 'No message of request 1764184470578998353 is still SCHEDULED: there is nothing to reschedule.',
  },
  REQUEST_IN_PROGRESS: {
    message: 'A request with this Idempotency-Key is still being processed; retry once it has been answered.',
    details: [{ field: 'Idempotency-Key', message: 'in progress' }],
  },
  SECRET_SHOWN_ONCE: {
    message:
      'The first request with this Idempotency-Key created key 17 of the sub-account acme-retail; its secret was shown once, in that answer, and is not kept. If that answer was lost, revoke key 17 and create another.',
    details: [{ field: 'Idempotency-Key', message: 'already answered once, with a secret that is not kept' }],
  },
  VERIFICATION_CLOSED: {
    message: 'Verification 0b9d5a1e-3c1f-4f0e-9a57-3c2b8e6d4f10 is approved, no longer pending.',
    details: [{ field: 'status', message: 'approved' }],
  },
  PAYLOAD_TOO_LARGE: refusal.bodyTooLarge(16384, 20480),
  IDEMPOTENCY_KEY_REUSED: {
    message:
      'This Idempotency-Key was already used with another request body (or on another route) in the last 24 hours; use a new key for a new request.',
    details: [{ field: 'Idempotency-Key', message: 'already used with another body' }],
  },
  RECIPIENT_REJECTED: {
    message: 'The code cannot be sent to this recipient: SUPPRESSED.',
    details: [{ field: 'to', message: 'SUPPRESSED' }],
  },
  UNSUPPORTED_MEDIA_TYPE: { message: refusal.NOT_JSON_MESSAGE, details: [refusal.NOT_JSON_DETAIL] },
  HEADERS_TOO_LARGE: { message: refusal.HEADERS_TOO_LARGE_MESSAGE },
  RATE_LIMITED: {
    message:
      'Rate limit of 100 requests per 1 s exceeded for this API key (a body counts once per started 4 KB of it); retry after 1 s.',
  },
  TOO_MANY_VERIFICATIONS: {
    message: '5 verifications were started for this number in the last 10 minutes; retry after 412 s.',
    details: [{ field: 'to', message: 'at most 5 per 10 minutes' }],
  },
  SUSPECTED_PUMPING: {
    message:
      'Codes to numbers starting 260971234 are blocked for this account for 3600 s: more than 10 were sent there in an hour (suspected traffic pumping).',
    details: [{ field: 'to', message: 'prefix 260971234 blocked' }],
  },
  INTERNAL_ERROR: { message: 'An internal error occurred.' },
  SERVICE_UNAVAILABLE: { message: 'A backing service is unavailable; retry shortly.' },
};

const REQUEST_ID = '3f1c2a9e-6a2b-4c51-9d7e-0b6f1f3c2d10';

export function jsonErrorExample(code: ErrorCode) {
  const { message, details = [] } = ERROR_EXAMPLES[code];
  return { success: false, message, error: { code, details }, request_id: REQUEST_ID };
}

function xmlEscape(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function xmlErrorExample(code: ErrorCode): string {
  return `<?xml version="1.0" encoding="UTF-8"?><response><status>ERROR</status><code>${code}</code><message>${xmlEscape(ERROR_EXAMPLES[code].message)}</message><request_id>${REQUEST_ID}</request_id></response>`;
}
