import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { loadBody } from './body-reader.js';

/**
 * The last global guard: reads and parses the request's body (body-reader.ts) once every check
 * before it has passed, so that a request refused for its key, its address or its rate limit
 * is answered without its body being read or parsed. Route guards, pipes and handlers see
 * `req.body` as before.
 */
@Injectable()
export class BodyGuard implements CanActivate {
  async canActivate(ctx: ExecutionContext): Promise<boolean> {
    if (ctx.getType() === 'http') await loadBody(ctx.switchToHttp().getRequest<Request>());
    return true;
  }
}
