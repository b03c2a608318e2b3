import { Injectable, type NestMiddleware } from '@nestjs/common';
import type { NextFunction, Response } from 'express';
import type { AuthedRequest } from '../api-keys/auth/auth-context.js';
import { displayAddress } from '../api-keys/auth/ip-allow-list.js';
import { RequestLogWriter } from './request-log.writer.js';
import { onResponseDone } from '../../platform/http/response-done.js';
import { declareRequestFields } from '../../platform/http/message-shape.js';

declareRequestFields('apiReference');

/** The api_reference of a JSON send answer, noted on the request for the log row. */
export type LoggedRequest = AuthedRequest & { apiReference?: string };

/**
 * Wraps `json` of the app's response prototype (once, at start) so the answer's api_reference
 * (a send, a cancellation, a summary) is noted for the log row as it is sent: no parsing of the
 * body, and no interceptor (an rxjs pipeline around every handler) to see what the controller
 * returned. Set after the platform's own `json` (the sliced writing of very large answers), it
 * sees every JSON answer, whatever its size. XML answers are text and error envelopes carry
 * none, so their rows have none.
 */
export function noteApiReferences(response: Response): void {
  const json = response.json;
  response.json = function (this: Response, body?: unknown) {
    const ref = (body as { api_reference?: unknown } | null | undefined)?.api_reference;
    if (typeof ref === 'string' || typeof ref === 'number')
      (this.req as unknown as LoggedRequest).apiReference = String(ref);
    return json.call(this, body);
  };
}

/**
 * Notes the start of every request and, when its response is done, hands one row to the writer
 * if the API key guard accepted a key (req.auth): so refusals after authentication (IP, rate
 * limit, validation, balance) are logged too, and requests without a valid key are not.
 */
@Injectable()
export class RequestLogMiddleware implements NestMiddleware {
  constructor(private readonly writer: RequestLogWriter) {}

  use(req: LoggedRequest, res: Response, next: NextFunction): void {
    const started = performance.now();
    const createdAt = new Date();
    onResponseDone(res, () => {
      const auth = req.auth;
      if (!auth) return;
      const url = req.originalUrl ?? req.url;
      const q = url.indexOf('?');
      const ua = req.headers['user-agent'];
      this.writer.add({
        apiKeyId: auth.key.id,
        accountId: auth.account.id,
        method: req.method,
        path: q < 0 ? url : url.slice(0, q),
        status: res.statusCode,
        ip: displayAddress(req.ip),
        userAgent: typeof ua === 'string' ? ua : null,
        durationMs: performance.now() - started,
        apiReference: req.apiReference ?? null,
        requestId: typeof req.id === 'string' ? req.id : null,
        createdAt,
      });
    });
    next();
  }
}
