import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { AppException } from '../errors/app.exception.js';
import { isXmlRoute, sendError, type ErrorEnvelope } from '../errors/error-body.js';
import type { ErrorCode } from '../errors/error-codes.js';
import {
  CROSS_SITE_MESSAGE,
  HEADERS_TOO_LARGE_MESSAGE,
  MALFORMED_REQUEST_MESSAGE,
  NOT_JSON_DETAIL,
  NOT_JSON_MESSAGE,
  REQUEST_TIMEOUT_MESSAGE,
} from '../errors/http-refusals.js';
import { xmlErrorBody } from '../xml/xml-codec.js';
import { announcesBody } from './body-reader.js';

/**
 * HTTP hardening shared by api.ts and the e2e tests (through configureApp): security headers,
 * CORS, the JSON content-type gate and the Node server's own limits. docs/design/security.md says
 * what each one is for.
 */

/**
 * HTML pages with their own scripts and styles: Swagger UI (platform/openapi/openapi.ts), the
 * queue dashboard and the connectors page (modules/admin).
 */
const DOCS_PATH = /^\/(?:docs(?:[-/]|$)|admin\/(?:queues|connectors)(?:\/|$))/;

/**
 * Security headers. API answers are JSON or XML that nothing should render, frame or load
 * scripts for: `default-src 'none'`. Swagger UI (/docs) and the queue dashboard
 * (/admin/queues) are real HTML pages: they get
 * helmet's default policy (scripts and styles from itself, data: images) without
 * `upgrade-insecure-requests`, which would break it when served over plain http, and with
 * styles and fonts from itself only, so they load nothing from outside.
 */
export function securityHeaders(): RequestHandler {
  const common = {
    frameguard: { action: 'deny' as const },
    referrerPolicy: { policy: 'no-referrer' as const },
  };
  const api = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
  });
  const docs = helmet({
    ...common,
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        upgradeInsecureRequests: null,
        frameAncestors: ["'none'"],
        // Nothing from outside: helmet's defaults allow styles and fonts from any https: origin,
        // and the queue dashboard's page asks for web fonts from one (it falls back to local fonts).
        styleSrc: ["'self'", "'unsafe-inline'"],
        fontSrc: ["'self'", 'data:'],
      },
    },
  });
  const apiHeaders = fixedHeaders(api);
  return (req, res, next) => {
    if (DOCS_PATH.test(req.path)) return docs(req, res, next);
    // Balances, message states and send answers belong to one account: no shared cache keeps them.
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    for (const [name, value] of apiHeaders) res.setHeader(name, value);
    res.removeHeader('X-Powered-By');
    return next();
  };
}

/**
 * The headers a helmet middleware sets, taken once at start. With a policy of constants (no
 * nonces, no functions) helmet sets the same headers on every response; setting the list
 * directly spares each request a dozen middleware calls and their header checks.
 */
function fixedHeaders(middleware: RequestHandler): Array<[string, string]> {
  const headers: Array<[string, string]> = [];
  const res = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  let done = false;
  middleware({ headers: {} } as Request, res as unknown as Response, () => (done = true));
  if (!done) throw new Error('helmet did not set its headers synchronously');
  return headers;
}

const CORS_METHODS = 'GET, POST';
const CORS_REQUEST_HEADERS = 'Authorization, Content-Type, X-API-Key, X-Request-Id, Idempotency-Key';
const CORS_EXPOSED_HEADERS =
  'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, WWW-Authenticate, Idempotent-Replayed';

/**
 * CORS, closed unless CORS_ORIGINS names the page's origin (exact `scheme://host[:port]`, or
 * `*` for any). No credentials mode: the API key travels in a header, never in a cookie.
 * A preflight from an origin not listed is answered 403 without any Access-Control-* header,
 * so the browser blocks the real request; a simple request from such an origin is served as
 * usual (the browser hides the answer from the page).
 */
export function corsMiddleware(origins: readonly string[]): RequestHandler {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction) => {
    const origin = req.headers.origin;
    if (origins.length > 0) res.vary('Origin');
    const ok = typeof origin === 'string' && (any || allowed.has(origin));
    const preflight =
      req.method === 'OPTIONS' &&
      origin !== undefined &&
      req.headers['access-control-request-method'] !== undefined;
    if (!preflight) {
      if (ok) {
        res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
        res.setHeader('Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS);
      }
      return next();
    }
    if (!ok) {
      sendError(req, res, 403, 'FORBIDDEN', 'Cross-origin requests from this origin are not allowed.');
      return;
    }
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    res.setHeader('Access-Control-Allow-Methods', CORS_METHODS);
    res.setHeader('Access-Control-Allow-Headers', CORS_REQUEST_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Refuses state-changing requests a browser makes on behalf of another site: an `Origin` not in
 * CORS_ORIGINS, or `Sec-Fetch-Site: cross-site` from an origin not listed. CORS alone does not
 * stop them: a form post or a "simple" fetch needs no preflight, so the request would be served
 * (and charged) and only its answer hidden from the page. The key travels in a header, so a
 * forged request carries one only if the browser adds it, which it does for Basic credentials a
 * user once typed into its prompt. Server-to-server clients send neither header and are not
 * affected; a page served from the API itself (Swagger UI) is `same-origin`.
 */
export function refuseCrossSite(origins: readonly string[]): RequestHandler {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req, res, next) => {
    if (!STATE_CHANGING.has(req.method)) return next();
    const site = req.headers['sec-fetch-site'];
    const origin = req.headers.origin;
    const listed = typeof origin === 'string' && (any || allowed.has(origin));
    const foreignOrigin = origin !== undefined && site !== 'same-origin' && !listed;
    if (foreignOrigin || (site === 'cross-site' && !listed)) {
      sendError(req, res, 403, 'FORBIDDEN', CROSS_SITE_MESSAGE);
      return;
    }
    next();
  };
}

/** The headers that carry credentials; each must come once. */
const CREDENTIAL_HEADERS: Record<string, string> = {
  authorization: 'Authorization',
  'x-api-key': 'X-API-Key',
};

/**
 * The 400 `MALFORMED_REQUEST` of a request that sends a credential header more than once, or
 * null. Node keeps the first `Authorization` and drops the others, and joins repeated
 * `X-API-Key` values with a comma: served either way, a proxy or client library that adds its
 * own header would pick the credentials without anyone noticing. `rawHeaders` has every line
 * as sent.
 */
export function repeatedCredentials(rawHeaders: readonly string[]): AppException | null {
  const seen = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const shown = CREDENTIAL_HEADERS[rawHeaders[i].toLowerCase()];
    if (!shown) continue;
    if (!seen.has(shown)) {
      seen.add(shown);
      continue;
    }
    return new AppException(
      'MALFORMED_REQUEST',
      `The ${shown} header is sent more than once; send it once.`,
      [{ field: shown, message: 'sent more than once' }],
    );
  }
  return null;
}

/** Every route: a credential header sent twice is refused before anything reads it (repeatedCredentials). */
export function refuseRepeatedCredentials(): RequestHandler {
  return (req, res, next) => {
    const refused = repeatedCredentials(req.rawHeaders);
    if (!refused) return next();
    sendError(req, res, 400, refused.code, refused.message, refused.details);
  };
}

/** The body types an HTML form (or a fetch without a preflight) can send from any site. */
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data', 'text/plain'];

/**
 * The XML endpoint reads its body as XML whatever Content-Type says, except the types a browser
 * may send cross-site without a preflight: with those a plain HTML form on any site could post
 * a valid document. XML_ACCEPT_FORM_CONTENT_TYPES=true accepts them again, for old clients.
 */
export function refuseFormBodies(accept: boolean): RequestHandler {
  return (req, res, next) => {
    // Not mounted on the XML path: express would strip it from req.path, and the error must be XML.
    if (accept || !isXmlRoute(req) || !announcesBody(req) || !req.is(FORM_TYPES)) return next();
    sendError(
      req,
      res,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
      'The XML endpoint does not take form content types; send the document as application/xml.',
      [
        {
          field: 'Content-Type',
          message: 'must not be text/plain, application/x-www-form-urlencoded or multipart/form-data',
        },
      ],
    );
  };
}

/**
 * A JSON endpoint given a non-JSON body answers 415 UNSUPPORTED_MEDIA_TYPE,
 * rather than the body being skipped by the parser and reported as a missing field.
 * "JSON" is exactly what express.json reads (`application/json`, any parameters).
 */
export function requireJsonBody(): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' || !announcesBody(req))
      return next();
    if (req.is('application/json')) return next();
    sendError(req, res, 415, 'UNSUPPORTED_MEDIA_TYPE', NOT_JSON_MESSAGE, [NOT_JSON_DETAIL]);
  };
}

export interface ServerLimits {
  /** Largest request head (request line and headers) in bytes; more answers 431. */
  maxHeaderSize: number;
  /** Time allowed to receive the whole request head, in ms; slower answers 408 and is closed. */
  headersTimeoutMs: number;
  /** Time allowed to receive the whole request, body included, in ms; 408 and closed. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection is kept open, in ms. */
  keepAliveTimeoutMs: number;
  /** Requests served on one connection before it is closed (0 = no cap). */
  maxRequestsPerSocket: number;
}

/**
 * Applies the limits to Node's HTTP server. Each one is read by Node per connection or per
 * request, so setting them after the server exists and before it listens is enough. The
 * timeouts are enforced by a periodic sweep (30 s apart by default, which would let a slow
 * client linger up to 30 s past its limit); it runs every second here, or faster for a
 * shorter timeout. Must run before listen: the sweep interval is read when listening starts.
 */
export function applyServerLimits(server: Server, limits: ServerLimits): void {
  // Typed only as a constructor option, but read from the server for every new connection.
  (server as Server & { maxHeaderSize: number }).maxHeaderSize = limits.maxHeaderSize;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  const sweep = Math.max(
    50,
    Math.min(1000, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)),
  );
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = sweep;
  if (!server.listeners('clientError').includes(answerClientError))
    server.on('clientError', answerClientError);
}

const CLIENT_ERRORS: Record<string, [number, ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'HEADERS_TOO_LARGE', HEADERS_TOO_LARGE_MESSAGE],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [
    413,
    'PAYLOAD_TOO_LARGE',
    'The chunk extensions are larger than the limit.',
  ],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'REQUEST_TIMEOUT', REQUEST_TIMEOUT_MESSAGE],
};

/**
 * What Node answers by itself to a request it cannot hand to the app (headers too large, not
 * HTTP, too slow): the same status as Node's own, but with the error envelope
 * (XML on the XML route when the request line got that far) instead of an empty body. Written
 * straight to the socket, as Node requires, and only when no answer has started.
 */
function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  const inFlight = (
    socket as Duplex & {
      _httpMessage?: ServerResponse & { _headerSent?: boolean; req?: { url?: string; originalUrl?: string } };
    }
  )._httpMessage;
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?._headerSent) {
    const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [
      400,
      'MALFORMED_REQUEST',
      MALFORMED_REQUEST_MESSAGE,
    ];
    const requestId = randomUUID();
    // Express strips a mount path from req.url while a mounted middleware (the XML body reader) runs.
    const url = inFlight?.req?.originalUrl ?? inFlight?.req?.url;
    const xml = url?.startsWith('/api/v1/xml/') === true;
    const envelope: ErrorEnvelope = {
      success: false,
      message,
      error: { code, details: [] },
      request_id: requestId,
    };
    const body = xml ? xmlErrorBody(code, message, requestId) : JSON.stringify(envelope);
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        `Content-Type: ${xml ? 'application/xml' : 'application/json'}; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
