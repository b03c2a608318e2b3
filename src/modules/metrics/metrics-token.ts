import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiUnauthorizedResponse, getSchemaPath } from '@nestjs/swagger';
import { METRICS_TOKEN_SCHEME } from '../../platform/openapi/api-docs.decorators.js';
import { ErrorEnvelopeDto } from '../../platform/openapi/error-envelope.dto.js';
import { jsonErrorExample } from '../../platform/openapi/error-examples.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { repeatedCredentials } from '../../platform/http/security.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="metrics"' };
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * With METRICS_TOKEN set, /metrics wants `Authorization: Bearer <token>` (compared in constant
 * time); without it, /metrics is open, as Prometheus scrapes usually are inside a cluster.
 * Throws the 401 of the error envelope otherwise, and 400 for two Authorization headers.
 */
export function checkMetricsToken(
  expected: string | undefined,
  req: Pick<IncomingMessage, 'headers' | 'rawHeaders'>,
): void {
  if (!expected) return;
  const repeated = repeatedCredentials(req.rawHeaders);
  if (repeated) throw repeated;
  const auth = req.headers.authorization;
  const match = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth) : null;
  if (!match) {
    throw new AppException(
      'MISSING_API_KEY',
      'The metrics token is required: Authorization: Bearer <METRICS_TOKEN>.',
      [],
      CHALLENGE,
    );
  }
  if (!timingSafeEqual(digest(match[1]), digest(expected))) {
    throw new AppException('INVALID_API_KEY', 'The metrics token is not valid.', [], {
      'WWW-Authenticate': 'Bearer realm="metrics", error="invalid_token"',
    });
  }
}

/**
 * The OpenAPI side of a route checkMetricsToken guards: the bearer scheme and its 401, both
 * dropped from the document when METRICS_TOKEN is unset (platform/openapi/openapi.ts).
 */
export function MetricsTokenAuth() {
  return applyDecorators(
    ApiBearerAuth(METRICS_TOKEN_SCHEME),
    ApiUnauthorizedResponse({
      description: 'METRICS_TOKEN is set and the bearer token is missing or wrong',
      content: {
        'application/json': {
          schema: { $ref: getSchemaPath(ErrorEnvelopeDto) },
          examples: {
            MISSING_API_KEY: {
              summary: 'no token',
              value: {
                ...jsonErrorExample('MISSING_API_KEY'),
                message: 'The metrics token is required: Authorization: Bearer <METRICS_TOKEN>.',
              },
            },
            INVALID_API_KEY: {
              summary: 'wrong token',
              value: { ...jsonErrorExample('INVALID_API_KEY'), message: 'The metrics token is not valid.' },
            },
          },
        },
      },
    }),
  );
}
