import { Injectable } from '@nestjs/common';
import { AppException } from '../../../../platform/errors/app.exception.js';
import type { ChannelPolicy, SendInput, TextMeasure } from '../../channel-policy.js';
import { normalisePhone } from '../../../messages/recipients.js';
import { codePointLength, hasLoneSurrogate } from '../../../messages/text.js';
import { countSegments } from '../../../messages/segments.js';
import { isSmsSender, MAX_SMS_SEGMENTS } from '../sms/sms.policy.js';

/** The chat providers' own text limit, in Unicode code points (an emoji is one, not two). */
export const MAX_CHAT_CHARS = 4096;

@Injectable()
export class ChatPolicy implements ChannelPolicy {
  readonly channel = 'chat' as const;
  readonly recipientField = 'recipient';

  normaliseRecipient(raw: string) {
    return normalisePhone(raw);
  }

  validate(input: SendInput): void {
    // A chat sender is a business phone number: digits with country code, as in the documented example.
    if (!/^[1-9]\d{0,14}$/.test(input.sender)) {
      throw AppException.validation(
        [
          {
            field: 'senderid',
            message: 'must be a number of up to 15 digits (country code first, no leading 0)',
          },
        ],
        'The sender id is not valid.',
      );
    }
    // An unpaired surrogate cannot be stored or sent as UTF-8; it would silently become U+FFFD.
    if (hasLoneSurrogate(input.body)) {
      throw AppException.validation([{ field: 'message', message: 'contains an unpaired UTF-16 surrogate' }]);
    }
    if (codePointLength(input.body) > MAX_CHAT_CHARS) {
      throw new AppException(
        'MESSAGE_TOO_LONG',
        `The chat message is longer than ${MAX_CHAT_CHARS} characters.`,
        [{ field: 'message', message: `more than ${MAX_CHAT_CHARS} characters (Unicode code points)` }],
      );
    }
    if (input.fallback) checkFallback(input);
  }

  unitsPerRecipient(): number {
    return 1;
  }

  measure(body: string): TextMeasure {
    const characters = codePointLength(body);
    return {
      units: 1,
      segments: 1,
      encoding: null,
      characters,
      tooLong: characters > MAX_CHAT_CHARS ? `more than ${MAX_CHAT_CHARS} characters` : null,
    };
  }
}

/** The fallback SMS must be sendable as one: an SMS sender id, and a text of at most 10 segments. */
function checkFallback(input: SendInput): void {
  const f = input.fallback!;
  if (!isSmsSender(f.sender ?? input.sender))
    throw AppException.validation(
      [
        {
          field: 'fallback.from',
          message: 'sender id must be 1-11 letters, digits or spaces, or up to 15 digits',
        },
      ],
      'The fallback sender id is not valid.',
    );
  const text = f.body ?? input.body;
  if (hasLoneSurrogate(text))
    throw AppException.validation([
      { field: 'fallback.message', message: 'contains an unpaired UTF-16 surrogate' },
    ]);
  const c = countSegments(text);
  if (c.segments > MAX_SMS_SEGMENTS)
    throw new AppException(
      'MESSAGE_TOO_LONG',
      `The fallback SMS would need ${c.segments} segments; at most ${MAX_SMS_SEGMENTS} are allowed.`,
      [{ field: f.body === null ? 'message' : 'fallback.message', message: `${c.segments} SMS segments` }],
    );
}
