import type { ErrorDetail } from '../../../../platform/errors/error-codes.js';
import { asList } from '../../../../platform/validation/validators.js';
import type { SendInput } from '../../channel-policy.js';
import { pickAlias, throwIfProblems } from '../../field-aliases.js';
import { readPersonalisation } from '../../personalisation/personalisation-input.js';
import { scheduleInput } from '../../../messages/schedule.js';
import { callbackUrlOf } from '../../callback-url-field.js';
import { priorityOf } from '../../send-priority.js';
import type { SmsSendDto } from './sms-send.dto.js';
import { shortenLinksOf } from '../../shorten-links-field.js';

/** Maps an SMS body (JSON DTO or parsed XML) to the pipeline's input, checking required fields. */
export function smsInput(body: SmsSendDto): SendInput {
  const problems: ErrorDetail[] = [];
  const sender = pickAlias(body, 'from', 'sender_id', problems);
  const to = pickAlias(body, 'to', 'recipient', problems);
  const extra = readPersonalisation(body, ['message', 'message_body'], problems);
  // With a template the text comes from it (filled in by the pipeline).
  const message = extra.templateId ? '' : pickAlias(body, 'message', 'message_body', problems);
  throwIfProblems(problems);
  const schedule = scheduleInput(body);
  // Field by field, not spread (see SendInput).
  return {
    sender: sender!.trim(),
    recipients: asList(to),
    body: message!,
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
    shortenLinks: shortenLinksOf(body),
  };
}
