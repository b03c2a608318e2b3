import { applyDecorators } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiResponse,
  ApiSecurity,
  getSchemaPath,
  type ContentObject,
  type ResponseObject,
} from '@nestjs/swagger';
import { ERROR_STATUS, type ErrorCode } from '../errors/error-codes.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';
import { jsonErrorExample, xmlErrorExample } from './error-examples.js';

export const API_KEY_SCHEME = 'api_key';
export const BEARER_SCHEME = 'bearer';
export const BASIC_SCHEME = 'basic';
export const METRICS_TOKEN_SCHEME = 'metrics_token';

function codesFor(status: number): ErrorCode[] {
  const codes = Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([code]) => code as ErrorCode);
  return codes.length ? codes : ['INTERNAL_ERROR'];
}

/**
 * The error response of one status in the envelope, naming the codes it can carry, with one
 * example per code. `xml: true` documents the XML rendering of the same fields.
 */
export function errorResponse(status: number, options: { xml?: boolean } = {}): ResponseObject {
  const codes = codesFor(status);
  // One example per code this status carries, so no example shows a code of another status.
  const examples = (render: (code: ErrorCode) => unknown) =>
    Object.fromEntries(codes.map((code) => [code, { summary: code, value: render(code) }]));
  const content: ContentObject = options.xml
    ? { 'application/xml': { schema: { type: 'string' }, examples: examples(xmlErrorExample) } }
    : {
        'application/json': {
          schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
          examples: examples(jsonErrorExample),
        },
      };
  return { description: `Error envelope; error.code one of ${codes.join(', ')}`, content };
}

/** Error responses in the envelope, one per status (see errorResponse). */
export function ApiErrors(statuses: number[], options: { xml?: boolean } = {}) {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...statuses.map((status) => ApiResponse({ status, ...errorResponse(status, options) })),
  );
}

/** A route behind the API-key guard: any one of the three schemes. */
export function ApiKeyAuth() {
  return applyDecorators(ApiSecurity(API_KEY_SCHEME), ApiSecurity(BEARER_SCHEME), ApiSecurity(BASIC_SCHEME));
}
