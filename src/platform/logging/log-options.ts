import { hostname } from 'node:os';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pino, type DestinationStream, type LoggerOptions } from 'pino';
import type { Options } from 'pino-http';
import type { AppConfig } from '../../config/config.js';

/**
 * Never in a log line: credentials in headers, passwords, keys and secrets wherever a log
 * object carries them (top level or one level down), and message bodies. pino-http does not
 * log request bodies at all; `req.body` is listed in case a serializer or a caller ever does.
 */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers["proxy-authorization"]',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'req.body',
  'body',
  'password',
  '*.password',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'key',
  '*.key',
  'secret',
  '*.secret',
  'callback_secret',
  '*.callback_secret',
  'token',
  '*.token',
  'message_body',
  '*.message_body',
  'email_body',
  '*.email_body',
  'parameters',
  '*.parameters',
];

/**
 * A developer's terminal: one line per event, at a human's pace. An access line reads
 * `POST /api/v1/json/bulk/sms 200 84ms (request id)`; the request and response objects
 * (headers and all) stay in the JSON lines of production only.
 */
export const PRETTY_OPTIONS = {
  // Colours only on a terminal: escape codes in a redirected file or a pipe are noise.
  colorize: process.stdout.isTTY === true,
  translateTime: 'SYS:HH:MM:ss.l',
  ignore: 'pid,hostname,service,env,context,request_id,req,res,response_time_ms',
  messageFormat: '{if context}[{context}] {end}{msg}{if request_id} ({request_id}){end}',
  singleLine: true,
};

/**
 * Access lines of these paths drop to debug while they succeed: probes, scrapes and the short
 * links' redirects (a campaign's clicks come in bursts, each already counted) would drown the
 * rest, and writing a line would cost a redirect more than the rest of its answer.
 */
const QUIET = /^\/(health(\/|$|\?)|metrics(\?|$)|l\/)/;

type Req = IncomingMessage & { originalUrl?: string };

/** The base pino options: one JSON object per line, ISO time, level names, redaction. */
export function loggerOptions(config: AppConfig, destination?: DestinationStream): LoggerOptions {
  return {
    level: config.logLevel,
    base: { service: config.serviceName, env: config.env, pid: process.pid, hostname: hostname() },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
    // Human-readable lines on a developer's terminal; never when a stream was injected (tests).
    ...(config.logPretty && !destination
      ? { transport: { target: 'pino-pretty', options: PRETTY_OPTIONS } }
      : {}),
  };
}

/**
 * pino-http: one access line per request when its response finishes, and `req.log`, the
 * request's logger, binding `request_id` (our X-Request-Id, set on req.id by the request-id
 * middleware that runs first) to every line logged while the request is handled.
 */
/**
 * A URL as the access log writes it: the query string (filters name recipients and references)
 * and the token of an unsubscribe link (it unsubscribes whoever holds it) are replaced by
 * `[redacted]`; the path and the route stay, which is what reading a log needs.
 */
export function loggedUrl(url: string | undefined): string {
  if (!url) return '';
  const q = url.indexOf('?');
  const path = (q < 0 ? url : url.slice(0, q)).replace(/^(\/unsubscribe\/)[^/]+/, '$1[redacted]');
  return q < 0 ? path : `${path}?[redacted]`;
}

export function httpLoggerOptions(
  config: AppConfig,
  destination?: DestinationStream,
): Options<Req, ServerResponse> {
  return {
    ...loggerOptions(config, destination),
    genReqId: (req) => req.id || String(req.headers['x-request-id'] ?? ''),
    quietReqLogger: true,
    customAttributeKeys: { reqId: 'request_id', responseTime: 'response_time_ms' },
    serializers: {
      req: (req: {
        method: string;
        url: string;
        headers: Record<string, unknown>;
        remoteAddress?: string;
        raw?: Req;
      }) => ({
        method: req.method,
        url: loggedUrl(req.raw?.originalUrl ?? req.url),
        remote_address: req.remoteAddress,
        headers: req.headers,
      }),
      res: (res: { statusCode: number }) => ({ status_code: res.statusCode }),
    },
    customLogLevel: (req, res, err) => {
      if (err || res.statusCode >= 500) return 'error';
      if (res.statusCode < 400 && QUIET.test(req.originalUrl ?? req.url ?? '')) return 'debug';
      return 'info';
    },
    customSuccessMessage: (req, res, ms) =>
      `${req.method} ${loggedUrl(req.originalUrl ?? req.url)} ${res.statusCode} ${ms}ms`,
    customErrorMessage: (req, res) =>
      `${req.method} ${loggedUrl(req.originalUrl ?? req.url)} ${res.statusCode} failed`,
  };
}
