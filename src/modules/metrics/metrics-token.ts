import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
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
