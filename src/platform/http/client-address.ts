import type { NextFunction, Request, Response } from 'express';

/**
 * Works out the client address (`req.ip`) once per request. Express's `req.ip` is a getter that
 * walks X-Forwarded-For against TRUST_PROXY at every read, and a request reads it several times
 * (the address throttle, the API key guard, the key's allow list, the request-log row). The
 * value is the getter's, so the rules are Express's own.
 */
export function pinClientAddress(req: Request, _res: Response, next: NextFunction): void {
  Object.defineProperty(req, 'ip', { value: req.ip, enumerable: true, configurable: true, writable: true });
  next();
}
