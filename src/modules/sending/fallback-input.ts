import type { ErrorDetail } from '../../platform/errors/error-codes.js';

export const MIN_FALLBACK_SECONDS = 10;
export const MAX_FALLBACK_SECONDS = 86_400;

/** A chat send's SMS fallback, as checked: null sender and body mean the chat's own. */
export interface FallbackSpec {
  afterSeconds: number;
  sender: string | null;
  body: string | null;
}

const KNOWN = new Set(['channel', 'after_seconds', 'from', 'message']);

/**
 * Reads `fallback: {channel: "sms", after_seconds, from?, message?}` from a chat body; problems
 * are added under `fallback.<field>`. The sender id and the text are checked against the SMS
 * rules by the chat policy, beside the chat's own.
 */
export function readFallback(raw: unknown, problems: ErrorDetail[]): FallbackSpec | null {
  if (raw === undefined || raw === null) return null;
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push({
      field: 'fallback',
      message: 'fallback must be an object {channel, after_seconds, from?, message?}',
    });
    return null;
  }
  const before = problems.length;
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o))
    if (!KNOWN.has(k)) problems.push({ field: `fallback.${k}`, message: 'unknown field' });
  if (o.channel !== 'sms') problems.push({ field: 'fallback.channel', message: 'channel must be "sms"' });
  const after = o.after_seconds;
  if (
    typeof after !== 'number' ||
    !Number.isInteger(after) ||
    after < MIN_FALLBACK_SECONDS ||
    after > MAX_FALLBACK_SECONDS
  )
    problems.push({
      field: 'fallback.after_seconds',
      message: `after_seconds must be a whole number of seconds from ${MIN_FALLBACK_SECONDS} to ${MAX_FALLBACK_SECONDS}`,
    });
  for (const k of ['from', 'message'] as const)
    if (o[k] !== undefined && o[k] !== null && (typeof o[k] !== 'string' || o[k].trim() === ''))
      problems.push({ field: `fallback.${k}`, message: `${k} must be a non-empty string` });
  if (problems.length > before) return null;
  return {
    afterSeconds: after as number,
    sender: typeof o.from === 'string' ? o.from.trim() : null,
    body: typeof o.message === 'string' ? o.message : null,
  };
}
