import type { NextFunction, Request, Response } from 'express';
import { AppException } from '../errors/app.exception.js';

/**
 * The nesting depth of a parsed JSON value, counted in containers: a scalar is 0, `{}` and
 * `[1]` are 1, `{"a":{"b":1}}` is 2. Walks with an explicit stack, never recursion, and stops
 * as soon as `limit` is passed, so a 10,000-level document costs `limit` steps down one branch
 * rather than a stack overflow. Returns `limit + 1` for anything deeper than `limit`.
 */
export function jsonDepth(value: unknown, limit: number): number {
  if (value === null || typeof value !== 'object') return 0;
  let max = 0;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (depth > max) max = depth;
    if (max > limit) return limit + 1;
    // JSON.parse only builds plain objects and arrays; Object.values reads own enumerable
    // values, including a key literally named "__proto__".
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child as object, depth + 1]);
    }
  }
  return max;
}

/**
 * Refuses a parsed JSON body nested deeper than `maxDepth` with 400 MALFORMED_BODY, before any
 * recursive code (class-transformer, class-validator, JSON.stringify) walks it: JSON.parse
 * itself copes with any depth, but those overflow the stack at a few thousand levels. The
 * same code as a body that does not parse: past this depth it is not a document we read,
 * just as the XML codec treats a too-deep document. Mount right after express.json.
 */
export function jsonDepthGuard(maxDepth: number) {
  return (req: Request, _res: Response, next: NextFunction): void => {
    const body: unknown = req.body;
    if (body !== null && typeof body === 'object' && jsonDepth(body, maxDepth) > maxDepth) {
      next(
        new AppException('MALFORMED_BODY', `The JSON body is nested more than ${maxDepth} levels deep.`, [
          { field: 'body', message: `nested more than ${maxDepth} levels` },
        ]),
      );
      return;
    }
    next();
  };
}
