import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { MetricsService } from './metrics.service.js';
import { onResponseDone } from '../../platform/http/response-done.js';

/** Requests that never reached a route (404s, body-parser errors, the shutdown 503) share one label. */
export const UNROUTED = '<unrouted>';

/**
 * The pattern of the route that handled the request. Catch-all patterns (`/{*path}`) belong to
 * middleware mounted for every path (request logs, nestjs-pino), whose Route object Express
 * leaves on req.route when no controller route follows: they mean "unrouted". No controller
 * here uses a wildcard.
 */
function routeOf(req: Request): string {
  const path = req.route?.path;
  if (typeof path !== 'string' || path.includes('*')) return UNROUTED;
  return `${req.baseUrl ?? ''}${path}`;
}

/**
 * Counts and times every request by the route *pattern* Express matched
 * (`/api/v1/json/messages/:messageId`), never the raw URL, so the label set stays bounded.
 */
export function httpMetricsMiddleware(metrics: MetricsService): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    const started = process.hrtime.bigint();
    onResponseDone(res, () => {
      metrics.observeHttp(
        req.method,
        routeOf(req),
        res.statusCode,
        Number(process.hrtime.bigint() - started) / 1e9,
      );
    });
    next();
  };
}
