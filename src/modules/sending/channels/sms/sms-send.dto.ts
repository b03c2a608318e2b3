import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsOptional, IsString, MaxLength } from 'class-validator';
import { IsStringOrStringArray } from '../../../../platform/validation/validators.js';
import { CallbackUrlField } from '../../callback-url-field.js';
import { PriorityField, type Priority } from '../../send-priority.js';
import { ShortenLinksField } from '../../shorten-links-field.js';
import { PersonalisationDto } from '../../personalisation/personalisation.dto.js';
import { ApiRequiresOneOf } from '../../../../platform/openapi/required-alternatives.js';

/**
 * Both name sets are accepted: from/to/message and the older
 * sender_id/recipient/message_body; which ones are required is checked after mapping. The
 * document marks no single name required but says one of each pair is (a template_id stands in
 * for the text).
 */
@ApiRequiresOneOf(['from', 'sender_id'], ['to', 'recipient'], ['message', 'message_body', 'template_id'])
export class SmsSendDto extends PersonalisationDto {
  @ApiPropertyOptional({
    description:
      'Sender id: 1-11 letters, digits or spaces, or up to 15 digits. Required, here or as sender_id.',
    example: 'ACME',
    maxLength: 64,
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  from?: string;

  @ApiPropertyOptional({
    deprecated: true,
    description: 'Older name of `from`, still accepted.',
    example: 'ACME',
    maxLength: 64,
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  sender_id?: string;

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description:
      'One phone number or a list: digits with country code, no plus sign. Required, here or as recipient.',
    example: ['260971234567', '260971234568'],
  })
  @IsOptional()
  @IsStringOrStringArray()
  to?: string | string[];

  @ApiPropertyOptional({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    deprecated: true,
    description: 'Older name of `to`, still accepted.',
    example: ['260971234567'],
  })
  @IsOptional()
  @IsStringOrStringArray()
  recipient?: string | string[];

  @ApiPropertyOptional({
    description:
      'SMS text; at most 10 segments (GSM-7 160/153, UCS-2 70/67 per segment). Required, here or as message_body, unless template_id is given.',
    example: 'Hello from ACME',
  })
  @IsOptional()
  @IsString()
  message?: string;

  @ApiPropertyOptional({
    deprecated: true,
    description: 'Older name of `message`, still accepted.',
    example: 'Hello from ACME',
  })
  @IsOptional()
  @IsString()
  message_body?: string;

  @CallbackUrlField()
  callback_url?: string;

  @ApiPropertyOptional({
    description: 'Department or source of the message.',
    example: 'billing',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  source?: string;

  @ApiPropertyOptional({
    description:
      'Your unique reference: a repeat with the same body returns the first answer, with a different body 409.',
    example: 'inv-2025-0001',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  user_reference_id?: string;

  @PriorityField()
  priority?: Priority;
  @ApiPropertyOptional({
    description:
      "Replace look-alike characters (curly quotes, dashes, ellipsis, unusual spaces...) with GSM-7 ones when that makes the whole text GSM-7, so it costs fewer segments. Absent: the account's default (off unless set). The answer then lists what was replaced.",
    example: true,
  })
  @IsOptional()
  @IsBoolean()
  smart_encoding?: boolean;

  @ShortenLinksField()
  shorten_links?: boolean;
}
