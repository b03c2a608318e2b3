import type { INestApplication } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { HttpDrain } from '../../modules/health/http-drain.js';
import { httpMetricsMiddleware } from '../../modules/metrics/http-metrics.middleware.js';
import { MetricsService } from '../../modules/metrics/metrics.service.js';
import { HTTP_LOGGER } from './logging.module.js';

function optional<T>(app: INestApplication, token: unknown): T | undefined {
  try {
    return app.get<T>(token as never, { strict: false });
  } catch {
    return undefined;
  }
}

/**
 * The Express middlewares that must see every request, before body parsing and routing:
 * the access log (pino-http), HTTP metrics, then the shutdown drain gate. Mount right after
 * the request-id middleware. Each is skipped when its module is not in the app.
 */
export function installRequestPipeline(app: INestApplication): void {
  const logger = optional<RequestHandler>(app, HTTP_LOGGER);
  if (logger) app.use(logger);
  const metrics = optional<MetricsService>(app, MetricsService);
  if (metrics) app.use(httpMetricsMiddleware(metrics));
  const drain = optional<HttpDrain>(app, HttpDrain);
  if (drain) app.use(drain.middleware());
}
