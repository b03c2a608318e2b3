import { Injectable } from '@nestjs/common';
import { AppException } from '../../../../platform/errors/app.exception.js';
import type { ChannelPolicy, SendInput, TextMeasure } from '../../channel-policy.js';
import { normalisePhone } from '../../../messages/recipients.js';
import { countSegments } from '../../../messages/segments.js';
import { codePointLength, hasLoneSurrogate } from '../../../messages/text.js';

export const MAX_SMS_SEGMENTS = 10;

/** An alphanumeric sender id holds at most 11 characters; a numeric one is a phone number (15 digits). */
export function isSmsSender(s: string): boolean {
  return (/^[A-Za-z0-9 ]{1,11}$/.test(s) && /[A-Za-z0-9]/.test(s)) || /^\+?\d{1,15}$/.test(s);
}

@Injectable()
export class SmsPolicy implements ChannelPolicy {
  readonly channel = 'sms' as const;
  readonly recipientField = 'to';

  normaliseRecipient(raw: string) {
    return normalisePhone(raw);
  }

  validate(input: SendInput): void {
    if (!isSmsSender(input.sender)) {
      throw AppException.validation(
        [{ field: 'from', message: 'sender id must be 1-11 letters, digits or spaces, or up to 15 digits' }],
        'The sender id is not valid.',
      );
    }
    // As on the other channels: an unpaired surrogate would be stored and sent as U+FFFD.
    if (hasLoneSurrogate(input.body)) {
      throw AppException.validation([{ field: 'message', message: 'contains an unpaired UTF-16 surrogate' }]);
    }
  }

  unitsPerRecipient(input: SendInput): number {
    const c = countSegments(input.body);
    if (c.segments > MAX_SMS_SEGMENTS) {
      throw new AppException(
        'MESSAGE_TOO_LONG',
        `The message needs ${c.segments} SMS segments (${c.encoding}); at most ${MAX_SMS_SEGMENTS} are allowed.`,
        [
          {
            field: 'message',
            message: `${c.units} ${c.encoding === 'GSM7' ? 'GSM-7 septets' : 'UTF-16 units'}, ${c.segments} segments`,
          },
        ],
      );
    }
    return c.segments;
  }

  measure(body: string): TextMeasure {
    const c = countSegments(body);
    return {
      units: c.segments,
      segments: c.segments,
      encoding: c.encoding === 'GSM7' ? 'GSM-7' : 'UCS-2',
      // A GSM-7 text has no surrogate pairs: its length is its code points.
      characters: c.encoding === 'GSM7' ? body.length : codePointLength(body),
      tooLong:
        c.segments > MAX_SMS_SEGMENTS
          ? `${c.segments} segments (${c.encoding === 'GSM7' ? 'GSM-7' : 'UCS-2'}); at most ${MAX_SMS_SEGMENTS}`
          : null,
    };
  }
}
