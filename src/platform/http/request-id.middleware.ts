import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { declareRequestFields } from './message-shape.js';

declareRequestFields('id');

const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Every response carries X-Request-Id: the caller's if it is a sane token, else a new UUID. */
export function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
  const given = req.headers['x-request-id'];
  const id = typeof given === 'string' && SAFE_ID.test(given) ? given : randomUUID();
  (req as Request & { id: string }).id = id;
  res.setHeader('X-Request-Id', id);
  next();
}
