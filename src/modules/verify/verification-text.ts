import { AppException } from '../../platform/errors/app.exception.js';
import type { Channel } from '../messages/channel.js';
import { compileText, renderText } from '../messages/placeholders.js';
import { CODE_MASK, CODE_PLACEHOLDER } from './verification-code.js';

export const DEFAULT_TEXT = `Your code is ${CODE_PLACEHOLDER}`;
export const DEFAULT_SUBJECT = 'Your code';

export interface VerificationText {
  body: string;
  /** E-mail only. */
  subject: string | null;
}

/** A template as a verification uses it. */
export interface TemplateText {
  channel: Channel;
  body: string;
  subject: string | null;
}

/**
 * The text a verification's code goes in: the request's `message`, else its template's body
 * (of the verification's channel), else the default; it must hold `{{code}}` and no other
 * placeholder (a verification has no other values). The subject stays free of the code: a
 * subject is shown in mailbox lists and notifications, where a code does not belong.
 */
export function verificationText(
  channel: Channel,
  message: string | undefined,
  template: TemplateText | undefined,
  templateId: string | undefined,
): VerificationText {
  const field = message !== undefined ? 'message' : 'template_id';
  if (template && template.channel !== channel)
    throw AppException.validation(
      [{ field: 'template_id', message: `a ${template.channel} template, not ${channel}` }],
      `Template ${templateId} is for ${template.channel}; this verification goes by ${channel}.`,
    );
  const body = message ?? template?.body ?? DEFAULT_TEXT;
  const subject = channel === 'email' ? (template?.subject ?? DEFAULT_SUBJECT) : null;
  const names = compileText(body).names;
  if (!names.includes('code'))
    throw AppException.validation(
      [{ field, message: `must hold ${CODE_PLACEHOLDER}` }],
      `The text of a verification must hold ${CODE_PLACEHOLDER}, where the code goes.`,
    );
  const other = [...names, ...(subject ? compileText(subject).names : [])].find((n) => n !== 'code');
  if (other !== undefined || (subject && subject.includes(CODE_PLACEHOLDER)))
    throw AppException.validation(
      [{ field, message: other ? `{{${other}}} has no value here` : `${CODE_PLACEHOLDER} in the subject` }],
      `A verification fills ${CODE_PLACEHOLDER} in the text, and nothing else.`,
    );
  return { body, subject };
}

/** The text as the message keeps it once handed over: the code written as ******. */
export function maskedText(body: string): string {
  const r = renderText(compileText(body), { code: CODE_MASK });
  return r.ok ? r.text : body;
}
