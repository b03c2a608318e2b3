import type { ErrorDetail } from '../../../../platform/errors/error-codes.js';
import { asList } from '../../../../platform/validation/validators.js';
import type { SendInput } from '../../channel-policy.js';
import { throwIfProblems } from '../../field-aliases.js';
import { readPersonalisation } from '../../personalisation/personalisation-input.js';
import { scheduleInput } from '../../../messages/schedule.js';
import { callbackUrlOf } from '../../callback-url-field.js';
import { priorityOf } from '../../send-priority.js';
import { readFallback } from '../../fallback-input.js';
import type { ChatSendDto } from './chat-send.dto.js';
import { shortenLinksOf } from '../../shorten-links-field.js';

function isBlank(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    (typeof v === 'string' && v.trim() === '') ||
    (Array.isArray(v) && v.length === 0)
  );
}

/**
 * Maps a chat body to the pipeline's input. `username`/`password` are checked by the
 * controller and never reach the pipeline, so they are neither stored nor part of the
 * idempotency hash. A numeric `senderid` is stored as its digits.
 */
export function chatInput(body: ChatSendDto): SendInput {
  const problems: ErrorDetail[] = [];
  const extra = readPersonalisation(body, ['message'], problems);
  const fallback = readFallback(body.fallback, problems);
  const required: Array<keyof ChatSendDto & string> = extra.templateId
    ? ['senderid', 'recipient']
    : ['senderid', 'message', 'recipient'];
  for (const field of required) {
    if (isBlank(body[field])) problems.push({ field, message: `${field} is required` });
  }
  throwIfProblems(problems);
  // Required above: present and not blank.
  const senderid = body.senderid!;
  const schedule = scheduleInput(body);
  // Field by field, not spread (see SendInput).
  return {
    sender: typeof senderid === 'number' ? String(senderid) : senderid.trim().replace(/^\+/, ''),
    recipients: asList(body.recipient!),
    body: extra.templateId ? '' : body.message!,
    callbackUrl: callbackUrlOf(body),
    userReferenceId: body.user_reference_id ?? null,
    sendAt: schedule.sendAt,
    validityPeriod: schedule.validityPeriod,
    sendWindow: schedule.sendWindow,
    priority: priorityOf(body),
    templateId: extra.templateId,
    variables: extra.variables,
    smartEncoding: extra.smartEncoding,
    shortenLinks: shortenLinksOf(body),
    fallback,
  };
}
