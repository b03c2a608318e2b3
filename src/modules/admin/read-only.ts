import type { NextFunction, Request, Response } from 'express';
import { sendError } from '../../platform/errors/error-body.js';

/** The methods that only read: Bull Board's reads are all GET, every write is PUT, PATCH or POST. */
const READS = new Set(['GET', 'HEAD']);

/**
 * Refuses every request that is not a read, whatever token it carries, before Bull Board sees
 * it. Bull Board's own `readOnlyMode` hides the buttons and refuses a queue's writes, but its
 * "pause all" and "resume all" answer without checking, and a write route added by a later
 * release would be open until someone notices: here a route is read-only unless it is a GET.
 * A write on the dashboard can inject a callback job, which the worker signs with a tenant's
 * secret and posts to any URL, or empty the queues of every tenant.
 */
export function readOnly(req: Request, res: Response, next: NextFunction): void {
  if (READS.has(req.method)) {
    next();
    return;
  }
  sendError(req, res, 403, 'FORBIDDEN', 'The queue dashboard is read-only.', [], { Allow: 'GET, HEAD' });
}
