import { applyDecorators } from '@nestjs/common';
import { ApiResponse, ApiSecurity } from '@nestjs/swagger';
import { ERROR_STATUS } from '../errors/error-codes.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';

export const API_KEY_SCHEME = 'api_key';
export const BEARER_SCHEME = 'bearer';
export const BASIC_SCHEME = 'basic';

function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code);
}

const XML_ERROR =
  '<?xml version="1.0" encoding="UTF-8"?><response><status>ERROR</status><code>VALIDATION_ERROR</code><message>The request is not valid: to is required.</message><request_id>3f1c2a9e-6a2b-4c51-9d7e-0b6f1f3c2d10</request_id></response>';

/**
 * Error responses in the envelope, one per status, each naming the codes it
 * can carry. `xml: true` documents the XML rendering of the same fields.
 */
export function ApiErrors(statuses: number[], options: { xml?: boolean } = {}) {
  return applyDecorators(
    ...statuses.map((status) => {
      const description = `Error envelope; error.code one of ${codesFor(status).join(', ') || 'INTERNAL_ERROR'}`;
      return options.xml
        ? ApiResponse({ status, description, content: { 'application/xml': { schema: { type: 'string', example: XML_ERROR } } } })
        : ApiResponse({ status, description, type: ErrorEnvelopeDto });
    }),
  );
}

/** A route behind the API-key guard: any one of the three schemes. */
export function ApiKeyAuth() {
  return applyDecorators(ApiSecurity(API_KEY_SCHEME), ApiSecurity(BEARER_SCHEME), ApiSecurity(BASIC_SCHEME));
}
