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

/** Maps anything thrown to the status, code and sentence the client sees. */
export function classifyError(err: unknown): ClassifiedError {
  const base = { details: [] as ErrorDetail[], headers: {} as Record<string, string>, unexpected: false };
  if (err instanceof AppException) {
    return {
      ...base,
      status: err.status,
      code: err.code,
      message: err.message,
      details: err.details,
      headers: err.headers,
    };
  }
  if (err instanceof MalformedXmlError) {
    return { ...base, status: err.status, code: err.code, message: err.message };
  }
  const parserType = (err as { type?: string } | null)?.type;
  if (parserType && BODY_PARSER_ERRORS[parserType]) return { ...base, ...BODY_PARSER_ERRORS[parserType] };
  if (isUndecodableBody(err)) {
    return {
      ...base,
      status: 400,
      code: 'MALFORMED_BODY',
      message: 'The request body does not match its Content-Encoding.',
    };
  }
  if (err instanceof ThrottlerException) {
    return {
      ...base,
      status: 429,
      code: 'RATE_LIMITED',
      message: 'Too many requests for this API key; retry later.',
    };
  }
  if (err instanceof HttpException) {
    const status = err.getStatus();
    const cause = (err as { cause?: { type?: string } }).cause;
    if (cause?.type && BODY_PARSER_ERRORS[cause.type]) return { ...base, ...BODY_PARSER_ERRORS[cause.type] };
    const code = STATUS_CODES[status];
    if (status === 404) return { ...base, status, code: 'NOT_FOUND', message: 'No such route or resource.' };
    if (code && status < 500) {
      const resp = err.getResponse();
      const text =
        typeof resp === 'string' ? resp : String((resp as { message?: unknown }).message ?? err.message);
      return { ...base, status, code, message: text };
    }
  }
  if (isUnavailableError(err)) {
    return {
      ...base,
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message: 'A backing service is unavailable; retry shortly.',
      headers: { 'Retry-After': '5' },
      unexpected: true,
    };
  }
  return {
    ...base,
    status: 500,
    code: 'INTERNAL_ERROR',
    message: 'An internal error occurred.',
    unexpected: true,
  };
}
