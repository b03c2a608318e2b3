import { Injectable } from '@nestjs/common';
import { AppException } from '../../../../platform/errors/app.exception.js';
import type { ErrorDetail } from '../../../../platform/errors/error-codes.js';
import type { ChannelPolicy, SendInput, TextMeasure } from '../../channel-policy.js';
import { throwIfProblems } from '../../field-aliases.js';
import { normaliseEmail } from '../../../messages/recipients.js';
import { parseSender } from '../../../messages/email-sender.js';
import { codePointLength, hasLoneSurrogate } from '../../../messages/text.js';

/** The stored sender, display name included (the column's width). */
const MAX_SENDER_CHARS = 320;
/** RFC 5322's line limit; a longer subject would have to be folded by every relay. */
export const MAX_SUBJECT_CHARS = 998;
/** 1 MiB of UTF-8: what the transport will actually carry, not JavaScript's UTF-16 length. */
export const MAX_EMAIL_BODY_BYTES = 1024 * 1024;

@Injectable()
export class EmailPolicy implements ChannelPolicy {
  readonly channel = 'email' as const;
  readonly recipientField = 'to';

  normaliseRecipient(raw: string) {
    return normaliseEmail(raw);
  }

  validate(input: SendInput): void {
    const problems: ErrorDetail[] = [];
    if (!parseSender(input.sender) || input.sender.length > MAX_SENDER_CHARS) {
      problems.push({
        field: 'from',
        message: 'must be an e-mail address, optionally with a display name: ACME News <news@acme.example>',
      });
    }
    if (input.replyTo != null && !normaliseEmail(input.replyTo).ok) {
      problems.push({ field: 'reply_to', message: 'must be a valid e-mail address' });
    }
    const subject = input.subject ?? '';
    if (codePointLength(subject) > MAX_SUBJECT_CHARS) {
      problems.push({ field: 'subject', message: `at most ${MAX_SUBJECT_CHARS} characters` });
    }
    // A line break in a header value is header injection (a smuggled Bcc:), never a real subject;
    // other control characters (tab aside) have no place in a header either.
    if (/[\r\n\u2028\u2029\u0085]/.test(subject))
      problems.push({ field: 'subject', message: 'must not contain line breaks' });
    else if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(subject))
      problems.push({ field: 'subject', message: 'must not contain control characters' });
    if (hasLoneSurrogate(subject))
      problems.push({ field: 'subject', message: 'contains an unpaired UTF-16 surrogate' });
    if (hasLoneSurrogate(input.body))
      problems.push({ field: 'email_body', message: 'contains an unpaired UTF-16 surrogate' });
    throwIfProblems(problems);

    const bytes = Buffer.byteLength(input.body, 'utf8');
    if (bytes > MAX_EMAIL_BODY_BYTES) {
      throw new AppException(
        'MESSAGE_TOO_LONG',
        `The e-mail body is ${bytes} bytes of UTF-8; at most ${MAX_EMAIL_BODY_BYTES} are allowed.`,
        [{ field: 'email_body', message: `${bytes} bytes, limit ${MAX_EMAIL_BODY_BYTES}` }],
      );
    }
  }

  unitsPerRecipient(): number {
    return 1;
  }

  measure(body: string, subject?: string | null): TextMeasure {
    const bytes = Buffer.byteLength(body, 'utf8');
    let tooLong: string | null = null;
    if (bytes > MAX_EMAIL_BODY_BYTES) tooLong = `${bytes} bytes of UTF-8; at most ${MAX_EMAIL_BODY_BYTES}`;
    else if (subject && codePointLength(subject) > MAX_SUBJECT_CHARS)
      tooLong = `subject over ${MAX_SUBJECT_CHARS} characters`;
    return { units: 1, segments: 1, encoding: null, characters: codePointLength(body), tooLong };
  }
}
