import { applyDecorators } from '@nestjs/common';
import { ApiExtraModels, ApiResponse, ApiSecurity, getSchemaPath } from '@nestjs/swagger';
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
 * Error responses in the envelope, one per status, each naming the codes it
 * can carry. `xml: true` documents the XML rendering of the same fields.
 */
export function ApiErrors(statuses: number[], options: { xml?: boolean } = {}) {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...statuses.map((status) => {
      const codes = codesFor(status);
      const description = `Error envelope; error.code one of ${codes.join(', ')}`;
      // One example per code this status carries, so no example shows a code of another status.
      const examples = (render: (code: ErrorCode) => unknown) =>
        Object.fromEntries(codes.map((code) => [code, { summary: code, value: render(code) }]));
      return options.xml
        ? ApiResponse({
            status,
            description,
            content: {
              'application/xml': { schema: { type: 'string' }, examples: examples(xmlErrorExample) },
            },
          })
        : ApiResponse({
            status,
            description,
            content: {
              'application/json': {
                schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
                examples: examples(jsonErrorExample),
              },
            },
          });
    }),
  );
}

/** A route behind the API-key guard: any one of the three schemes. */
export function ApiKeyAuth() {
  return applyDecorators(ApiSecurity(API_KEY_SCHEME), ApiSecurity(BEARER_SCHEME), ApiSecurity(BASIC_SCHEME));
}
