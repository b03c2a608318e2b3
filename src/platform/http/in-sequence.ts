import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Middlewares that every request passes, run one after the other as ONE Express layer: each
 * layer of the router costs every request a path match and a few allocations, and these run
 * for every path anyway. Same contract as separate `app.use` calls: a handler that calls
 * `next(err)`, throws, or returns a promise that rejects hands the error to Express's error
 * handlers; one that answers and does not call `next` ends the sequence.
 */
export function inSequence(handlers: readonly RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let i = 0;
    const step = (err?: unknown): void => {
      if (err !== undefined && err !== null) return next(err);
      const handler = handlers[i++];
      if (!handler) return next();
      try {
        const out: unknown = handler(req, res, step);
        if (out instanceof Promise) out.catch(next);
      } catch (e) {
        next(e);
      }
    };
    step();
  };
}
