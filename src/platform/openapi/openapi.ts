import type { INestApplication } from '@nestjs/common';
import {
  DocumentBuilder,
  SwaggerModule,
  type OpenAPIObject,
  type OperationObject,
  type ResponseObject,
} from '@nestjs/swagger';
import type { AppConfig } from '../../config/config.js';
import {
  API_KEY_SCHEME,
  BASIC_SCHEME,
  BEARER_SCHEME,
  METRICS_TOKEN_SCHEME,
  errorResponse,
} from './api-docs.decorators.js';
import { ErrorEnvelopeDto } from './error-envelope.dto.js';
import { applyRequiredAlternatives } from './required-alternatives.js';
import { toOpenApi31 } from './openapi-31.js';

/** The OpenAPI document, generated from the controllers' and DTOs' decorators. */
export function buildOpenApiDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle('Bulk messaging API')
    .setDescription(
      'Bulk SMS (JSON and XML), e-mail and chat sends, balance, message status, health probes and metrics. ' +
        'Every error answers the same envelope (`ErrorEnvelopeDto`); every response carries `X-Request-Id`. ' +
        'A test key (`bmk_test_…`) is answered exactly as a live one, but its messages reach no provider and cost ' +
        'nothing: the recipient decides the outcome (docs/api/test-keys.md). A test key sees and changes only test ' +
        'data (messages, requests, templates, inbound messages, suppressions; the other side is 404), and its ' +
        'callbacks and inbound-webhook events carry `test: true` (live ones `test: false`). Test traffic is ' +
        'bounded: at most TEST_MAX_RECIPIENTS (1,000) recipients per request (400 `TOO_MANY_RECIPIENTS`) and ' +
        'TEST_DAILY_MESSAGES (10,000) test messages per account and UTC day (429 `RATE_LIMITED`, `Retry-After` ' +
        'until midnight). ' +
        "A send that would cross the key's or the account's daily spend limit answers 402 `SPEND_LIMIT_EXCEEDED` " +
        'with the amount remaining today (UTC) in `error.details`. ' +
        "Bodies are limited per route, sized for MAX_RECIPIENTS recipients (413 `PAYLOAD_TOO_LARGE` by Content-Length, before the body is read, and `Connection: close`), and count against the key's rate limit once per started RATE_LIMIT_BODY_KB (4 KB).",
    )
    .setVersion(config.version)
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: 'X-API-Key',
        description: 'The API key in a header (once: a repeated X-API-Key is 400 `MALFORMED_REQUEST`)',
      },
      API_KEY_SCHEME,
    )
    // addSecurity, not addBearerAuth: that one adds bearerFormat JWT, and our keys are opaque strings.
    .addSecurity(BEARER_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description:
        'Authorization: Bearer <API key> (an opaque key, not a JWT); one Authorization header: a repeated one is 400 `MALFORMED_REQUEST`',
    })
    .addBasicAuth(
      {
        type: 'http',
        scheme: 'basic',
        description:
          'HTTP Basic with the API key as user name and an empty password (kept for backward compatibility; a non-empty password is refused with 401)',
      },
      BASIC_SCHEME,
    )
    .addTag('sms')
    .addTag('email')
    .addTag('chat')
    .addTag('balance')
    .addTag('messages')
    .addTag('health')
    .addTag('operations');
  // /metrics and /health/detailed are locked only when METRICS_TOKEN is set: without it Swagger UI shows them open.
  if (config.metricsToken)
    builder.addSecurity(METRICS_TOKEN_SCHEME, {
      type: 'http',
      scheme: 'bearer',
      description: 'Authorization: Bearer <METRICS_TOKEN> (set on this server)',
    });
  const doc = SwaggerModule.createDocument(app, builder.build(), { extraModels: [ErrorEnvelopeDto] });
  if (!config.metricsToken) {
    for (const path of ['/metrics', '/health/detailed']) {
      const open = doc.paths[path]?.get;
      if (open) {
        delete open.security;
        delete open.responses['401'];
      }
    }
  }
  applyRequiredAlternatives(doc);
  return toOpenApi31(declareMethodNotAllowed(declareResponseHeaders(doc)));
}

/**
 * Every path answers a method it does not serve with 405 and `Allow`
 * (platform/http/method-not-allowed.ts), before any key is read: declared here on every
 * operation, in the rendering (JSON or XML) of the operation's own answers.
 */
function declareMethodNotAllowed(doc: OpenAPIObject): OpenAPIObject {
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as OperationObject[]) {
      if (!op || typeof op !== 'object' || !op.responses || op.responses['405']) continue;
      const xml = Object.values(op.responses as Record<string, ResponseObject>).some(
        (r) => r.content?.['application/xml'] && !r.content['application/json'],
      );
      const response = errorResponse(405, { xml });
      op.responses['405'] = {
        ...response,
        description: `${response.description}. The path does not serve this method; Allow lists those it does`,
        headers: {
          Allow: { description: 'The methods this path serves, e.g. `POST`', schema: { type: 'string' } },
        },
      };
    }
  }
  return doc;
}

const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': 'Requests the API key may make per window',
  'RateLimit-Remaining': 'Requests left in the current window (0 once refused)',
  'RateLimit-Reset': 'Seconds until the window (or a refusal) ends',
};

/**
 * The headers every keyed answer carries (RateLimit-*, Retry-After on 429) and a replayed
 * answer's Idempotent-Replayed, on each route they apply to: set here, from each operation's
 * security and parameters, rather than repeated on every controller method.
 */
function declareResponseHeaders(doc: OpenAPIObject): OpenAPIObject {
  const header = (description: string, type: 'integer' | 'string' = 'integer') => ({
    description,
    schema: { type },
  });
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item) as OperationObject[]) {
      if (!op || typeof op !== 'object' || !op.responses) continue;
      const keyed = (op.security ?? []).some((s) => API_KEY_SCHEME in s);
      const idempotent = (op.parameters ?? []).some((p) => 'name' in p && p.name === 'Idempotency-Key');
      for (const [status, response] of Object.entries(op.responses) as Array<[string, ResponseObject]>) {
        const headers = { ...response.headers };
        if (keyed)
          for (const [name, description] of Object.entries(RATE_LIMIT_HEADERS))
            headers[name] = header(description);
        if (keyed && status === '429') headers['Retry-After'] = header('Seconds to wait before retrying');
        if (idempotent && status.startsWith('2'))
          headers['Idempotent-Replayed'] = header(
            '`true` when this is the stored answer to an earlier request with the same Idempotency-Key',
            'string',
          );
        if (Object.keys(headers).length) response.headers = headers;
      }
    }
  }
  return doc;
}

/**
 * Swagger UI at /docs and the document at /docs-json. Mounted on the HTTP adapter, outside
 * Nest's router, so the API-key guard does not apply: the documentation is public.
 * The document is built on first request, once every module has been scanned.
 */
export function setupOpenApi(app: INestApplication, config: AppConfig): void {
  let document: OpenAPIObject | undefined;
  SwaggerModule.setup('docs', app, () => (document ??= buildOpenApiDocument(app, config)), {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    customSiteTitle: 'bulk-messaging API',
  });
}
