import type { ErrorDetail } from './error-codes.js';

/**
 * The wording of the refusals the HTTP stack answers by itself, before any route: used where the
 * answer is made and in the OpenAPI examples, so the two cannot drift apart.
 */
export const CROSS_SITE_MESSAGE =
  'Cross-site requests are not allowed: the request comes from a page of another origin.';

export const NOT_JSON_MESSAGE = 'A JSON endpoint needs Content-Type: application/json.';
export const NOT_JSON_DETAIL: ErrorDetail = { field: 'Content-Type', message: 'must be application/json' };

export const HEADERS_TOO_LARGE_MESSAGE = 'The request line and headers are larger than the limit.';
export const REQUEST_TIMEOUT_MESSAGE = 'The request did not arrive in time.';
export const MALFORMED_REQUEST_MESSAGE = 'The request is not valid HTTP.';

/** A body over an endpoint's limit: the limit, and the body's size when it was announced. */
export function bodyTooLarge(limit: number, size?: number): { message: string; details: ErrorDetail[] } {
  return {
    message: `The request body is larger than this endpoint takes (${limit} bytes).`,
    details: [
      {
        field: 'body',
        message: size === undefined ? `over ${limit} bytes` : `${size} bytes, limit ${limit}`,
      },
    ],
  };
}
