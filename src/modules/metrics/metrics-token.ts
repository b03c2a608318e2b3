import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { AppException } from '../../platform/errors/app.exception.js';

const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="metrics"' };
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * With METRICS_TOKEN set, /metrics wants `Authorization: Bearer <token>` (compared in constant
 * time); without it, /metrics is open, as Prometheus scrapes usually are inside a cluster.
 * Throws the 401 of the error envelope otherwise.
 */
export function checkMetricsToken(expected: string | undefined, headers: IncomingHttpHeaders): void {
  if (!expected) return;
  const auth = headers.authorization;
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
