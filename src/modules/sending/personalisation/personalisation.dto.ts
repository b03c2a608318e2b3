import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ScheduleFieldsDto } from '../schedule-fields.dto.js';
import { PassThrough } from '../../../platform/validation/pass-through.js';

/**
 * The fields every JSON send may add for personalisation. Their contents (names, string
 * values, the template's existence) are checked after mapping, in personalisation-input.ts.
 */
export class PersonalisationDto extends ScheduleFieldsDto {
  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: { type: 'object', additionalProperties: { type: 'string' } },
    description:
      'Values for `{{name}}` placeholders, keyed by recipient as written in the request; each value an object of strings. A recipient missing a value it needs is REJECTED with reason MISSING_VARIABLE; one whose text comes out too long, MESSAGE_TOO_LONG. In an e-mail body the values are HTML-escaped.',
    example: { '260971234567': { first_name: 'Jane', amount: '120.50' } },
  })
  // Checked in personalisation-input.ts; class-transformer would copy 10,000 entries one by one.
  @PassThrough()
  variables?: Record<string, Record<string, string>>;

  @ApiPropertyOptional({
    format: 'uuid',
    description: 'A stored template of this channel whose text is used instead of the message (and subject).',
    example: '019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  template_id?: string;
}
