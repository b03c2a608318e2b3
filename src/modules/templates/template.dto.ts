import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CHANNELS } from '../messages/channel.js';
import { IsWholeNumberFrom, MAX_PAGE_NUMBER } from '../../platform/validation/validators.js';

/** Types only: what is required and each limit are checked in template-rules.ts, all problems at once. */
export class TemplateBodyDto {
  @ApiProperty({
    description: 'Unique within the account; at most 100 characters.',
    example: 'payment-reminder',
  })
  @IsOptional()
  @IsString()
  @MaxLength(400)
  name?: string;

  @ApiProperty({ enum: CHANNELS, example: 'sms' })
  @IsOptional()
  @IsString()
  channel?: string;

  @ApiProperty({
    description:
      "The text, with `{{name}}` placeholders (letters, digits, _) filled from a send's `variables`. SMS and chat: at most 4096 characters; e-mail: HTML, at most 1 MiB.",
    example: 'Hello {{first_name}}, your balance is {{amount}}.',
  })
  @IsOptional()
  @IsString()
  body?: string;

  @ApiPropertyOptional({
    description: 'E-mail templates only; may hold placeholders too. A send may give its own subject instead.',
    example: 'Your statement, {{first_name}}',
  })
  @IsOptional()
  @IsString()
  subject?: string;
}

export class TemplateListQuery {
  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only the templates of this channel' })
  @IsOptional()
  @IsIn(CHANNELS)
  channel?: string;

  @ApiPropertyOptional({ description: 'Page number, from 1', example: '1', maxLength: 9 })
  @IsOptional()
  @IsWholeNumberFrom(1, MAX_PAGE_NUMBER)
  page?: string;

  @ApiPropertyOptional({ description: 'Templates per page, 1 to 500 (default 100)', example: '100' })
  @IsOptional()
  @IsWholeNumberFrom(1, 500)
  per_page?: string;
}

export class TemplateDto {
  @ApiProperty({ format: 'uuid', example: '019ab3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b' }) template_id: string;
  @ApiProperty({ example: 'payment-reminder' }) name: string;
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel: string;
  @ApiProperty({ nullable: true, type: String, example: null }) subject: string | null;
  @ApiProperty({ example: 'Hello {{first_name}}, your balance is {{amount}}.' }) body: string;
  @ApiProperty({ type: [String], example: ['first_name', 'amount'] }) placeholders: string[];
  @ApiProperty({ format: 'date-time' }) created_at: string;
  @ApiProperty({ format: 'date-time' }) updated_at: string;
}

export class TemplateListDto {
  @ApiProperty({ type: [TemplateDto] }) templates: TemplateDto[];
  @ApiProperty({ example: 1 }) page: number;
  @ApiProperty({ example: 100 }) per_page: number;
  @ApiProperty({ example: 1 }) total: number;
}

export class TemplateDeletedDto {
  @ApiProperty({ format: 'uuid' }) template_id: string;
  @ApiProperty({ example: true }) deleted: boolean;
}
