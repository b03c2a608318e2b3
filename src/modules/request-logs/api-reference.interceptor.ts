import { Injectable, type CallHandler, type ExecutionContext, type NestInterceptor } from '@nestjs/common';
import { tap, type Observable } from 'rxjs';
import type { LoggedRequest } from './request-log.middleware.js';

/**
 * Sees what a controller returns and, when it is a JSON send answer, keeps its api_reference on
 * the request for the request-log row: no parsing of the response body. XML answers are text
 * and errors never reach here, so their rows have none.
 */
@Injectable()
export class ApiReferenceInterceptor implements NestInterceptor {
  intercept(ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (ctx.getType() !== 'http') return next.handle();
    const req = ctx.switchToHttp().getRequest<LoggedRequest>();
    return next.handle().pipe(
      tap((value) => {
        const ref = (value as { api_reference?: unknown } | null)?.api_reference;
        if (typeof ref === 'string' || typeof ref === 'number') req.apiReference = String(ref);
      }),
    );
  }
}
