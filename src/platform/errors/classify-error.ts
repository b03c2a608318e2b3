import { HttpException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { MalformedXmlError } from '../xml/xml-codec.js';
import { AppException } from './app.exception.js';
import type { ErrorCode, ErrorDetail } from './error-codes.js';

export interface ClassifiedError {
  status: number;
  code: ErrorCode;
  message: string;
  details: ErrorDetail[];
  headers: Record<string, string>;
  /** Unexpected: worth a log line with the stack. */
  unexpected: boolean;
}

const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'EPIPE',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
  'ER_LOCK_WAIT_TIMEOUT',
  'ER_LOCK_DEADLOCK',
  'ER_QUERY_INTERRUPTED',
  // A Galera node that left the cluster's primary component ("WSREP has not yet prepared node
  // for application use"), or lost it during a COMMIT: another node serves once the proxy moves.
  'ER_UNKNOWN_COM_ERROR',
  'ER_ERROR_DURING_COMMIT',
]);

/** True for errors that mean MySQL or Redis is out of reach, not that the request is wrong. */
export function isUnavailableError(err: unknown): boolean {
  if (!err || typeof err !== 'object') return false;
  const e = err as { code?: string; driverError?: { code?: string }; name?: string; message?: string };
  const code = e.code ?? e.driverError?.code;
  if (code && UNAVAILABLE_CODES.has(code)) return true;
  if (e.name === 'MaxRetriesPerRequestError') return true;
  const msg = e.message ?? '';
  return /Connection is closed|Stream isn't writeable|connect ECONNREFUSED|Pool is closed|Can't add new command when connection is in closed state|Connection lost/i.test(
    msg,
  );
}

const BODY_PARSER_ERRORS: Record<string, { status: number; code: ErrorCode; message: string }> = {
  'entity.parse.failed': {
    status: 400,
    code: 'MALFORMED_BODY',
    message: 'The request body is not valid JSON.',
  },
  'entity.too.large': {
    status: 413,
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The request body is larger than the limit.',
  },
  'encoding.unsupported': {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'The request body encoding is not supported.',
  },
  'charset.unsupported': {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'The request body charset is not supported.',
  },
  'request.aborted': { status: 400, code: 'MALFORMED_BODY', message: 'The request body was cut short.' },
  'request.size.invalid': {
    status: 400,
    code: 'MALFORMED_BODY',
    message: 'The request body does not match its Content-Length.',
  },
};

/**
 * body-parser reports a body that does not decompress (a Content-Encoding the bytes do not
 * match) as a bare http-errors 400 around the zlib error, without a `type`.
 */
function isUndecodableBody(err: unknown): boolean {
  const e = err as { status?: unknown; expose?: unknown; code?: unknown } | null;
  return (
    e?.status === 400 &&
    e.expose === true &&
    typeof e.code === 'string' &&
    /^(Z_|ERR__ERROR_|ERR_BROTLI|ERR_ZSTD)/.test(e.code)
  );
}

const STATUS_CODES: Record<number, ErrorCode> = {
  400: 'VALIDATION_ERROR',
  401: 'INVALID_API_KEY',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  503: 'SERVICE_UNAVAILABLE',
};

/**
 * One classification, every field written in one literal (no spread of shared defaults: a
 * property written after a spread makes a hidden class per error, see with-fields.ts).
 */
function classified(
  status: number,
  code: ErrorCode,
  message: string,
  more: { details?: ErrorDetail[]; headers?: Record<string, string>; unexpected?: boolean } = {},
): ClassifiedError {
  return {
    status,
    code,
    message,
    details: more.details ?? [],
    headers: more.headers ?? {},
    unexpected: more.unexpected ?? false,
  };
}

function bodyParserError(type: string | undefined): ClassifiedError | undefined {
  // Own keys only: a type such as "constructor" names no parser error.
  const known = type && Object.hasOwn(BODY_PARSER_ERRORS, type) ? BODY_PARSER_ERRORS[type] : undefined;
  return known && classified(known.status, known.code, known.message);
}

/**
 * The JSON parser's strict mode refuses a body that is valid JSON but no object or array
 * (`null`, `"text"`, `42`) as if it did not parse: it is answered as a body of the wrong type.
 */
function isJsonButNotObject(err: unknown): boolean {
  const e = err as { type?: unknown; body?: unknown } | null;
  if (e?.type !== 'entity.parse.failed' || typeof e.body !== 'string') return false;
  try {
    const value: unknown = JSON.parse(e.body);
    return value === null || typeof value !== 'object';
  } catch {
    return false;
  }
}

/** Maps anything thrown to the status, code and sentence the client sees. */
export function classifyError(err: unknown): ClassifiedError {
  if (err instanceof AppException) {
    return classified(err.status, err.code, err.message, { details: err.details, headers: err.headers });
  }
  if (err instanceof MalformedXmlError) return classified(err.status, err.code, err.message);
  if (isJsonButNotObject(err)) return classifyError(AppException.bodyNotObject());
  const parsing = bodyParserError((err as { type?: string } | null)?.type);
  if (parsing) return parsing;
  if (isUndecodableBody(err)) {
    return classified(400, 'MALFORMED_BODY', 'The request body does not match its Content-Encoding.');
  }
  if (err instanceof ThrottlerException) {
    return classified(429, 'RATE_LIMITED', 'Too many requests for this API key; retry later.');
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const cause = bodyParserError((err as { cause?: { type?: string } }).cause?.type);
    if (cause) return cause;
    const code = STATUS_CODES[status];
    if (status === 404) return classified(status, 'NOT_FOUND', 'No such route or resource.');
    if (code && status < 500) {
      const resp = err.getResponse();
      const text =
        typeof resp === 'string' ? resp : String((resp as { message?: unknown }).message ?? err.message);
      return classified(status, code, text);
    }
  }
  if (isUnavailableError(err)) {
    return classified(503, 'SERVICE_UNAVAILABLE', 'A backing service is unavailable; retry shortly.', {
      headers: { 'Retry-After': '5' },
      unexpected: true,
    });
  }
  return classified(500, 'INTERNAL_ERROR', 'An internal error occurred.', { unexpected: true });
}
