import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsStringOrStringArray } from '../../../../platform/validation/validators.js';
import { CallbackUrlField } from '../../callback-url-field.js';
import { PriorityField, type Priority } from '../../send-priority.js';
import { PersonalisationDto } from '../../personalisation/personalisation.dto.js';
import { ApiRequiresOneOf } from '../../../../platform/openapi/required-alternatives.js';

/**
 * Types only: which fields are required, and what a valid address is, is checked
 * after mapping (email-input.ts, email.policy.ts) so every problem is reported in one answer.
 * A template_id stands in for the subject and the body, so the document requires one or the other.
 */
@ApiRequiresOneOf(['subject', 'template_id'], ['email_body', 'template_id'])
export class EmailSendDto extends PersonalisationDto {
  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description: 'One e-mail address or a list.',
    example: ['jane@example.com', 'john@example.com'],
  })
  @IsOptional()
  @IsStringOrStringArray()
  to?: string | string[];

  @ApiPropertyOptional({
    description: "Required unless template_id is given (the template's subject is then used).",
    example: 'Your November statement',
  })
  @IsOptional()
  @IsString()
  subject?: string;

  @ApiPropertyOptional({
    description: 'Content; may contain HTML markup. Required unless template_id is given.',
    example: '<p>Hello Jane, your statement is ready.</p>',
  })
  @IsOptional()
  @IsString()
  email_body?: string;

  @ApiProperty({
    description:
      'Sender address, optionally with a display name (`ACME Billing <billing@acme.example>`); no line breaks or control characters.',
    example: 'ACME Billing <billing@acme.example>',
    maxLength: 320,
  })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  from?: string;

  @ApiPropertyOptional({ example: 'support@acme.example', maxLength: 320 })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  reply_to?: string;

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
    description: 'Your unique reference (idempotency).',
    example: 'stmt-2025-11-jane',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  user_reference_id?: string;

  @PriorityField()
  priority?: Priority;
}
