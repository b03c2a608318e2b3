import type { INestApplication } from '@nestjs/common';
import type { RequestHandler } from 'express';
import { HttpDrain } from '../../modules/health/http-drain.js';
import { httpMetricsMiddleware } from '../../modules/metrics/http-metrics.middleware.js';
import { MetricsService } from '../../modules/metrics/metrics.service.js';
import { HTTP_LOGGER } from './logging.module.js';

/**
 * The Express middlewares that must see every request, before body parsing and routing:
 * the access log (pino-http), HTTP metrics, then the shutdown drain gate. Mount right after
 * the request-id middleware.
 */
export function installRequestPipeline(app: INestApplication): void {
  app.use(app.get<RequestHandler>(HTTP_LOGGER));
  app.use(httpMetricsMiddleware(app.get(MetricsService)));
  app.use(app.get(HttpDrain).middleware());
}
