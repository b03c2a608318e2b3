import { AppException } from '../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../platform/errors/error-codes.js';
import { CHANNELS, type Channel } from '../messages/channel.js';
import { codePointLength, hasLoneSurrogate } from '../messages/text.js';
import type { TemplateFields } from './template.store.js';

export const MAX_TEMPLATE_NAME = 100;
/** SMS and chat: the chat limit; an SMS text is checked against its 10 segments when it is sent. */
export const MAX_TEXT_CHARS = 4096;
const MAX_EMAIL_BODY_BYTES = 1024 * 1024;
const MAX_SUBJECT_CHARS = 998;

/** Checks a template as given to POST or PUT, reporting every problem in one answer. */
export function checkTemplate(raw: {
  name?: unknown;
  channel?: unknown;
  body?: unknown;
  subject?: unknown;
}): TemplateFields {
  const problems: ErrorDetail[] = [];
  const name = typeof raw.name === 'string' ? raw.name.trim() : '';
  if (!name) problems.push({ field: 'name', message: 'name is required' });
  else if (codePointLength(name) > MAX_TEMPLATE_NAME)
    problems.push({ field: 'name', message: `at most ${MAX_TEMPLATE_NAME} characters` });
  else if (/[\u0000-\u001f\u007f]/.test(name) || hasLoneSurrogate(name))
    problems.push({ field: 'name', message: 'must not contain control characters' });

  const channel = raw.channel as Channel;
  if (!CHANNELS.includes(channel)) problems.push({ field: 'channel', message: 'must be sms, email or chat' });

  const body = typeof raw.body === 'string' ? raw.body : '';
  if (body.trim() === '') problems.push({ field: 'body', message: 'body is required' });
  else if (hasLoneSurrogate(body))
    problems.push({ field: 'body', message: 'contains an unpaired UTF-16 surrogate' });
  else if (channel === 'email' && Buffer.byteLength(body, 'utf8') > MAX_EMAIL_BODY_BYTES)
    problems.push({ field: 'body', message: `at most ${MAX_EMAIL_BODY_BYTES} bytes of UTF-8` });
  else if (channel !== 'email' && codePointLength(body) > MAX_TEXT_CHARS)
    problems.push({ field: 'body', message: `at most ${MAX_TEXT_CHARS} characters` });

  let subject: string | null = null;
  if (raw.subject !== undefined && raw.subject !== null && raw.subject !== '') {
    if (channel !== 'email')
      problems.push({ field: 'subject', message: 'only an e-mail template has a subject' });
    else if (typeof raw.subject !== 'string')
      problems.push({ field: 'subject', message: 'must be a string' });
    else if (codePointLength(raw.subject) > MAX_SUBJECT_CHARS)
      problems.push({ field: 'subject', message: `at most ${MAX_SUBJECT_CHARS} characters` });
    else if (/[\u0000-\u0008\u000a-\u001f\u007f\u2028\u2029\u0085]/.test(raw.subject))
      problems.push({ field: 'subject', message: 'must not contain line breaks or control characters' });
    else if (hasLoneSurrogate(raw.subject))
      problems.push({ field: 'subject', message: 'contains an unpaired UTF-16 surrogate' });
    else subject = raw.subject;
  }
  if (problems.length) throw AppException.validation(problems, 'The template is not valid.');
  return { name, channel, body, subject };
}
