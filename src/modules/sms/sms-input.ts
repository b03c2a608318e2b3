import type { ErrorDetail } from '../../common/errors/error-codes.js';
import { asList } from '../../common/validation/validators.js';
import type { SendInput } from '../messaging/channel-policy.js';
import { pickAlias, throwIfProblems } from '../messaging/field-aliases.js';

/** Maps an SMS body (JSON DTO or parsed XML) to the pipeline's input, checking required fields. */
export function smsInput(body: Record<string, unknown>): SendInput {
  const problems: ErrorDetail[] = [];
  const sender = pickAlias<string>(body, 'from', 'sender_id', problems);
  const to = pickAlias<string | string[]>(body, 'to', 'recipient', problems);
  const message = pickAlias<string>(body, 'message', 'message_body', problems);
  throwIfProblems(problems);
  return {
    sender: sender!.trim(),
    recipients: asList(to),
    body: message!,
    source: (body.source as string | undefined) ?? null,
    callbackUrl: (body.callback_url as string | undefined) ?? null,
    userReferenceId: (body.user_reference_id as string | undefined) ?? null,
  };
}
