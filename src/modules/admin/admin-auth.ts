import { createHash, timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { sendError } from '../../platform/errors/error-body.js';

const digest = (s: string) => createHash('sha256').update(s).digest();
const CHALLENGE = { 'WWW-Authenticate': 'Basic realm="bulk-messaging admin", charset="UTF-8"' };

/** The token a request presents: the password of HTTP Basic (any user name), or a Bearer token. */
function presented(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 ? decoded.slice(colon + 1) : undefined;
}

/**
 * Guards the operators' pages with ADMIN_TOKEN. HTTP Basic, so a browser asks for it once
 * (user name: anything, password: the token) and sends it with every request of the page;
 * scripts may send `Authorization: Bearer <token>`. Compared in constant time.
 */
export function adminAuth(token: string) {
  const expected = digest(token);
  return (req: Request, res: Response, next: NextFunction): void => {
    const given = presented(req.headers.authorization);
    if (given === undefined) {
      sendError(
        req,
        res,
        401,
        'MISSING_API_KEY',
        'The admin token is required: HTTP Basic with ADMIN_TOKEN as the password.',
        [],
        CHALLENGE,
      );
      return;
    }
    if (!timingSafeEqual(digest(given), expected)) {
      sendError(req, res, 401, 'INVALID_API_KEY', 'The admin token is not valid.', [], CHALLENGE);
      return;
    }
    next();
  };
}
