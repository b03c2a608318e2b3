import type { components } from './generated/api.js';

/** The codes the service answers errors with (its error envelope's `error.code`). */
export type ErrorCode = components['schemas']['ErrorBodyDto']['code'];

/** One problem of a refused request: the field (`to[3]`, `send_at`) and what is wrong with it. */
export type ErrorDetail = components['schemas']['ErrorDetailDto'];

/**
 * A request the service refused (any 4xx or 5xx), or one that never got an answer
 * (`code` NETWORK_ERROR, `status` 0) once the retries were spent.
 */
export class BulkMessagingError extends Error {
  override readonly name = 'BulkMessagingError';
  /** The HTTP status; 0 when no answer came. */
  readonly status: number;
  /** The envelope's code, or NETWORK_ERROR / UNEXPECTED_RESPONSE when there was none. */
  readonly code: ErrorCode | 'NETWORK_ERROR' | 'UNEXPECTED_RESPONSE';
  readonly details: ErrorDetail[];
  /** The request's id (the envelope's `request_id`, else `X-Request-Id`): quote it to support. */
  readonly requestId: string | undefined;
  /** Seconds the service asked to wait (`Retry-After`), when it said. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: {
    status: number;
    code: BulkMessagingError['code'];
    message: string;
    details?: ErrorDetail[];
    requestId?: string;
    retryAfterSeconds?: number;
    cause?: unknown;
  }) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
    this.retryAfterSeconds = init.retryAfterSeconds;
  }
}

interface Envelope {
  message?: unknown;
  error?: { code?: unknown; details?: unknown };
  request_id?: unknown;
}

/** `Retry-After` in seconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterSeconds(response: Response, now = Date.now()): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

/** The error a refused answer stands for, read from its envelope when it has one. */
export function errorFromResponse(response: Response, body: unknown): BulkMessagingError {
  const envelope = (typeof body === 'object' && body !== null ? body : {}) as Envelope;
  const code = envelope.error?.code;
  const requestId =
    typeof envelope.request_id === 'string'
      ? envelope.request_id
      : (response.headers.get('x-request-id') ?? undefined);
  return new BulkMessagingError({
    status: response.status,
    code: typeof code === 'string' ? (code as ErrorCode) : 'UNEXPECTED_RESPONSE',
    message:
      typeof envelope.message === 'string'
        ? envelope.message
        : `HTTP ${response.status}${typeof body === 'string' && body ? `: ${body.slice(0, 200)}` : ''}`,
    details: Array.isArray(envelope.error?.details) ? (envelope.error.details as ErrorDetail[]) : [],
    requestId,
    retryAfterSeconds: retryAfterSeconds(response),
  });
}
