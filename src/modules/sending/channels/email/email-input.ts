import type { ErrorDetail } from '../../../../platform/errors/error-codes.js';
import { asList } from '../../../../platform/validation/validators.js';
import type { SendInput } from '../../channel-policy.js';
import { throwIfProblems } from '../../field-aliases.js';
import { readPersonalisation } from '../../personalisation/personalisation-input.js';
import { scheduleInput } from '../../../messages/schedule.js';
import { normaliseEmail } from '../../../messages/recipients.js';
import { formatSender, parseSender } from '../../../messages/email-sender.js';
import { callbackUrlOf } from '../../callback-url-field.js';
import { priorityOf } from '../../send-priority.js';
import type { EmailSendDto } from './email-send.dto.js';

function isBlank(v: unknown): boolean {
  return (
    v === undefined ||
    v === null ||
    (typeof v === 'string' && v.trim() === '') ||
    (Array.isArray(v) && v.length === 0)
  );
}

/** An address as it will be stored: domain lower-cased when valid; left as sent otherwise for the policy to refuse. */
function address(raw: string): string {
  const check = normaliseEmail(raw);
  return check.ok ? check.value : raw.trim();
}

/** A sender as it will be stored: `Name <address>` or the address, normalised; left as sent when invalid. */
function sender(raw: string): string {
  const parsed = parseSender(raw);
  return parsed ? formatSender(parsed) : String(raw).trim();
}

/**
 * Maps an e-mail body to the pipeline's input, checking required fields. The body
 * and subject are kept exactly as sent: HTML and whitespace are content.
 */
export function emailInput(body: EmailSendDto): SendInput {
  const problems: ErrorDetail[] = [];
  const extra = readPersonalisation(body, ['email_body'], problems);
  // With a template the body (and, unless given here, the subject) comes from it.
  const required: Array<keyof EmailSendDto & string> = extra.templateId
    ? ['to', 'from']
    : ['to', 'subject', 'email_body', 'from'];
  for (const field of required) {
    if (isBlank(body[field])) problems.push({ field, message: `${field} is required` });
  }
  throwIfProblems(problems);
  const replyTo = body.reply_to;
  const subject = body.subject;
  const schedule = scheduleInput(body);
  // Field by field, not spread (see SendInput).
  return {
    // Required above: present and not blank.
    sender: sender(body.from!),
    recipients: asList(body.to!),
    body: extra.templateId ? '' : body.email_body!,
    subject: subject === undefined || isBlank(subject) ? null : subject,
    // An empty reply_to means "none", the way most mail clients treat an empty header.
    replyTo: replyTo === undefined || replyTo.trim() === '' ? null : address(replyTo),
    source: body.source ?? null,
    callbackUrl: callbackUrlOf(body),
    userReferenceId: body.user_reference_id ?? null,
    sendAt: schedule.sendAt,
    validityPeriod: schedule.validityPeriod,
    sendWindow: schedule.sendWindow,
    priority: priorityOf(body),
    templateId: extra.templateId,
    variables: extra.variables,
    smartEncoding: extra.smartEncoding,
  };
}
