import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength, ValidateBy } from 'class-validator';
import { IsStringOrStringArray } from '../../../../platform/validation/validators.js';
import { CallbackUrlField } from '../../callback-url-field.js';
import { PriorityField, type Priority } from '../../send-priority.js';
import { ShortenLinksField } from '../../shorten-links-field.js';
import { PersonalisationDto } from '../../personalisation/personalisation.dto.js';
import { PassThrough } from '../../../../platform/validation/pass-through.js';
import { ApiRequiresOneOf } from '../../../../platform/openapi/required-alternatives.js';

/** The documented example sends the chat sender id as a JSON number; a string of digits is the same thing. */
function IsStringOrWholeNumber(): PropertyDecorator {
  return ValidateBy({
    name: 'isStringOrWholeNumber',
    validator: {
      validate: (v: unknown) =>
        typeof v === 'string' || (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0),
      defaultMessage: (args) => `${args?.property} must be a string or a whole number`,
    },
  });
}

/**
 * `recipient` is documented as a list; a single string is accepted too, like `to` on
 * the other channels. `user_reference_id` is not among the documented chat fields: it is accepted so a chat
 * send can be retried safely like the others. A template_id stands in for the message.
 */
@ApiRequiresOneOf(['message', 'template_id'])
export class ChatSendDto extends PersonalisationDto {
  @ApiProperty({ description: 'API username (the account the key belongs to).', example: 'acme' })
  @IsOptional()
  @IsString()
  username?: string;

  // Bounded so an absurd value never reaches the password hash.
  @ApiProperty({
    description: 'API password.',
    example: 'a-long-secret',
    maxLength: 1024,
    format: 'password',
  })
  @IsOptional()
  @IsString()
  @MaxLength(1024)
  password?: string;

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'integer', minimum: 0 }],
    description: 'Sender id on the chat channel; a number in the documented example.',
    example: 260971234567,
  })
  @IsOptional()
  @IsStringOrWholeNumber()
  senderid?: string | number;

  @ApiPropertyOptional({
    description: 'Message content; non-ASCII characters allowed. Required unless template_id is given.',
    example: 'Muli shani! Your order has shipped.',
  })
  @IsOptional()
  @IsString()
  message?: string;

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description:
      'Recipient numbers on the chat channel (digits with country code); a single string is accepted too.',
    example: ['260971234567', '260971234568'],
  })
  @IsOptional()
  @IsStringOrStringArray()
  recipient?: string | string[];

  @CallbackUrlField()
  callback_url?: string;

  @ApiPropertyOptional({
    description: 'Your unique reference (idempotency).',
    example: 'promo-2025-11-01',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  user_reference_id?: string;

  @PriorityField()
  priority?: Priority;

  @ShortenLinksField()
  shorten_links?: boolean;

  @ApiPropertyOptional({
    type: 'object',
    required: ['channel', 'after_seconds'],
    additionalProperties: false,
    properties: {
      channel: { type: 'string', enum: ['sms'] },
      after_seconds: { type: 'integer', minimum: 10, maximum: 86400, example: 60 },
      from: { type: 'string', description: 'SMS sender id; default: the chat senderid', example: 'ACME' },
      message: {
        type: 'string',
        description: "SMS text (at most 10 segments); default: the chat message's text",
      },
    },
    description:
      "An SMS to each recipient whose chat message is not DELIVERED within after_seconds of acceptance (of send_at when later), or ends UNDELIVERED, REJECTED, FAILED or EXPIRED before. It is an ordinary SMS, priced and charged when it is created (REJECTED, INSUFFICIENT_BALANCE when the SMS balance cannot pay then); the chat message's lookup shows it as `fallback`, and its events go to this request's callback URL too.",
    example: { channel: 'sms', after_seconds: 60, from: 'ACME' },
  })
  // Checked after mapping (fallback-input.ts, and the SMS rules in the chat policy).
  @PassThrough()
  fallback?: Record<string, unknown>;
}
