import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { HttpLogger, Options } from 'pino-http';
import { Store, storage } from 'nestjs-pino/storage.js';
import { onResponseDone, responseError } from '../http/response-done.js';
import { declareRequestFields, declareResponseFields } from '../http/message-shape.js';

declareRequestFields('log');
declareResponseFields('log');

type Req = IncomingMessage & { originalUrl?: string; log?: Logger };
type Res = ServerResponse & { log?: Logger; err?: Error };
type Level = 'debug' | 'info' | 'warn' | 'error' | 'fatal' | 'trace' | 'silent';

/**
 * The access log of pino-http (`options`: the same request id, levels, messages and line
 * shape, on `http.logger` with its serializers and redaction), without its cost per request
 * when nothing is written: pino-http makes a child logger bound to the whole request, which
 * serializes and redacts the request's headers on every request, even when the level of its
 * access line is off (the API under load at LOG_LEVEL=warn). Here the request gets `req.log`
 * bound to its request id only, made when something logs through it (lazyChild); the request
 * object is serialized into the access line when that line is written. The rest of the request
 * runs in nestjs-pino's async context with that logger, as nestjs-pino's own middleware would
 * bind it. The line is written when the response is done (onResponseDone).
 */
export function accessLog(http: HttpLogger, options: Options): HttpLogger {
  const root = http.logger;
  const levelOf = options.customLogLevel!;
  const success = options.customSuccessMessage!;
  const failure = options.customErrorMessage!;
  const idKey = options.customAttributeKeys?.reqId ?? 'reqId';
  const timeKey = options.customAttributeKeys?.responseTime ?? 'responseTime';
  const genReqId = options.genReqId!;

  function finished(req: Req, res: Res, log: Logger, started: number, err?: Error): void {
    const ms = Date.now() - started;
    const failed =
      err ??
      res.err ??
      (res.statusCode >= 500 ? new Error(`failed with status code ${res.statusCode}`) : undefined);
    const level = levelOf(req, res, failed) as Level;
    // The root's level: asking the request's logger would make it.
    if (level === 'silent' || !root.isLevelEnabled(level)) return;
    if (failed) log[level]({ req, res, err: failed, [timeKey]: ms }, failure(req, res, failed));
    else log[level]({ req, res, [timeKey]: ms }, success(req, res, ms));
  }

  const middleware = ((req: Req, res: Res, next: () => void) => {
    const started = Date.now();
    req.id = req.id || genReqId(req, res);
    const log = lazyChild(root, { [idKey]: req.id });
    req.log ??= log;
    res.log ??= log;
    onResponseDone(res, () => finished(req, res, log, started, responseError(res)));
    // nestjs-pino's Logger and PinoLogger find the request's logger in this context.
    storage.run(new Store(req.log), next);
  }) as unknown as HttpLogger;
  middleware.logger = root;
  return middleware;
}

/**
 * `root.child(bindings)`, made on first use: most requests log nothing while they are handled,
 * and a pino child costs its bindings' serialization and redaction. nestjs-pino keeps this
 * object as the request's logger in its async context; every property read or write reaches
 * the child. One handler serves every request's proxy (its state is on the proxy's target).
 */
function lazyChild(root: Logger, bindings: Record<string, unknown>): Logger {
  return new Proxy({ root, bindings } as LazyTarget, LAZY_CHILD) as unknown as Logger;
}

interface LazyTarget {
  root: Logger;
  bindings: Record<string, unknown>;
  child?: Logger;
}

const real = (t: LazyTarget): Logger => (t.child ??= t.root.child(t.bindings));

const LAZY_CHILD: ProxyHandler<LazyTarget> = {
  get(target, prop) {
    const logger = real(target);
    const value: unknown = Reflect.get(logger, prop, logger);
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(logger) : value;
  },
  set: (target, prop, value) => Reflect.set(real(target), prop, value),
  has: (target, prop) => Reflect.has(real(target), prop),
};
