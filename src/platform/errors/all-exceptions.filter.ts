import { Catch, Logger, type ArgumentsHost, type ExceptionFilter } from '@nestjs/common';
import type { Request, Response } from 'express';
import { PreparedAnswer } from './prepared-answer.js';
import { classifyError } from './classify-error.js';
import { sendError } from './error-body.js';

/** The single place where errors become responses: never a stack or SQL in a body. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    if (exception instanceof PreparedAnswer) return exception.write(res);
    const c = classifyError(exception);
    if (c.unexpected) {
      this.logger.error(
        `${req.method} ${req.path} → ${c.status} ${c.code} [${String(res.getHeader('X-Request-Id'))}]`,
        exception instanceof Error ? exception.stack : String(exception),
      );
    }
    sendError(req, res, c.status, c.code, c.message, c.details, c.headers);
  }
}
