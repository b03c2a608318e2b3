import type { NestExpressApplication } from '@nestjs/platform-express';
import type express from 'express';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { AppConfig } from '../../config/config.js';
import { AllExceptionsFilter } from '../errors/all-exceptions.filter.js';
import { classifyError } from '../errors/classify-error.js';
import { sendError } from '../errors/error-body.js';
import { setupOpenApi } from '../openapi/openapi.js';
import { AppValidationPipe } from '../validation/app-validation.pipe.js';
import { inSequence } from './in-sequence.js';
import { sliceLargeJson } from './json-slices.js';
import { requestIdMiddleware } from './request-id.middleware.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { deferContinue, refuseOversizedBodies } from './body-reader.js';
import {
  applyServerLimits,
  corsMiddleware,
  refuseCrossSite,
  refuseFormBodies,
  refuseRepeatedCredentials,
  requireJsonBody,
  securityHeaders,
} from './security.js';

function trustProxySetting(value: string | undefined): boolean | string | string[] {
  if (!value) return false;
  if (value === 'true') return true;
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The Express app under Nest's adapter: its `response` is the prototype of every response. */
export function expressApp(app: NestExpressApplication): express.Express {
  return app.getHttpAdapter().getInstance() as express.Express;
}

/**
 * Everything the HTTP app needs beyond its modules. `early` are the middlewares that must see
 * every request right after it gets its id, before security headers, body parsing and routing
 * (the address throttle, the access log, HTTP metrics, the shutdown drain gate), in that order:
 * the composition root hands them over. Create the app with `bodyParser: false`.
 */
export function configureHttp(app: NestExpressApplication, config: AppConfig, early: RequestHandler[]): void {
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', trustProxySetting(config.trustProxy));
  // The middlewares every request passes, in this order, as one Express layer (in-sequence.ts).
  app.use(
    inSequence([
      requestIdMiddleware,
      ...early,
      // Security headers, CORS and the server's own limits (docs/design/security.md).
      securityHeaders(),
      corsMiddleware(config.http.corsOrigins),
      refuseRepeatedCredentials(),
      // Before any body is read: a forged cross-site request is refused before anything is stored.
      refuseCrossSite(config.http.corsOrigins),
      // The XML endpoint is read as text whatever Content-Type says, except form types.
      refuseFormBodies(config.http.xmlAcceptFormContentTypes),
      // A known path asked with a method it does not serve: 405 with Allow, before any body is read.
      methodNotAllowed(expressApp(app)),
      // A body over its route's limit is refused here, unread; the others are read by the last guard.
      refuseOversizedBodies(config.http.bodyLimits, config.http.maxJsonDepth),
    ]),
  );
  // Answers with one entry per recipient of a very large send are written in slices.
  sliceLargeJson(expressApp(app).response);
  applyServerLimits(app.getHttpServer(), config.http);
  // Bodies are read after the guards (body-reader.ts): a 100-continue waits for that too.
  deferContinue(app.getHttpServer());
  app.use('/api/v1/json', requireJsonBody());
  // Errors of the middlewares happen before Nest's router: answer them in the same envelope here.
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (res.headersSent) return next(err);
    const c = classifyError(err);
    sendError(req, res, c.status, c.code, c.message, c.details, c.headers);
  });
  app.useGlobalFilters(new AllExceptionsFilter());
  app.useGlobalPipes(new AppValidationPipe());
  app.enableShutdownHooks();
  // Swagger UI at /docs, the document at /docs-json (outside Nest's router: no key needed).
  setupOpenApi(app, config);
}
