import type { NestExpressApplication } from '@nestjs/platform-express';
import type { RequestHandler } from 'express';
import type { AppConfig } from '../config/config.js';
import { ApiKeyCache } from '../modules/api-keys/api-key.cache.js';
import { AuthThrottle } from '../modules/api-keys/auth/auth-throttle.service.js';
import { HttpDrain } from '../modules/health/http-drain.service.js';
import { httpMetricsMiddleware } from '../modules/metrics/http-metrics.middleware.js';
import { MetricsService } from '../modules/metrics/metrics.service.js';
import {
  RequestLogMiddleware,
  noteApiReferences,
  type LoggedRequest,
} from '../modules/request-logs/request-log.middleware.js';
import { configureHttp, expressApp } from '../platform/http/configure-app.js';
import { HTTP_LOGGER } from '../platform/logging/logging.module.js';

/**
 * The HTTP stack of the API; shared by api.ts and the e2e tests so both run the same one.
 * Right after the request id, before anything reads the body: the throttle of failed
 * authentication (per address, for requests without a valid key), then the access log (pino-http), HTTP metrics, the shutdown drain
 * gate and the request-log row (written for requests a key was accepted for), so that they
 * see every request.
 */
export function configureApp(app: NestExpressApplication, config: AppConfig): void {
  configureHttp(app, config, [
    addressGate(app),
    app.get<RequestHandler>(HTTP_LOGGER),
    httpMetricsMiddleware(app.get(MetricsService)),
    app.get(HttpDrain).middleware(),
    requestLogs(app.get(RequestLogMiddleware)),
  ]);
  noteApiReferences(expressApp(app).response);
}

function addressGate(app: NestExpressApplication): RequestHandler {
  return app.get(AuthThrottle).addressGate(app.get(ApiKeyCache));
}

function requestLogs(middleware: RequestLogMiddleware): RequestHandler {
  return (req, res, next) => middleware.use(req as unknown as LoggedRequest, res, next);
}
