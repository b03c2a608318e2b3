import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { CHANNELS, type Channel } from '../messages/channel.js';
import { SubaccountQueryField } from '../api-keys/auth/subaccount-scope.guard.js';
import { RECIPIENT_REASONS, SUPPRESSION_REASONS, type SuppressionReason } from './suppression.store.js';

/** The reasons a tenant may give when it lists recipients itself. */
const TENANT_REASONS = SUPPRESSION_REASONS.filter((r) => !RECIPIENT_REASONS.includes(r));
import { MAX_ADD, MAX_LIST_LIMIT } from './suppressions.service.js';
import { IsWholeNumberFrom } from '../../platform/validation/validators.js';

export class SuppressionListQuery {
  @ApiPropertyOptional({ enum: CHANNELS, description: 'Only this channel (default: every channel)' })
  @IsOptional()
  @IsIn(CHANNELS)
  channel?: Channel;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page', maxLength: 2000 })
  @IsOptional()
  @IsString()
  @MaxLength(2000)
  cursor?: string;

  @ApiPropertyOptional({
    description: `Entries per page, at most ${MAX_LIST_LIMIT} (default 100)`,
    example: '100',
    pattern: '^\\d+$',
  })
  @IsOptional()
  @IsWholeNumberFrom(1, MAX_LIST_LIMIT)
  limit?: string;

  @SubaccountQueryField()
  subaccount?: string;
}

export class AddSuppressionsDto {
  @ApiProperty({ enum: CHANNELS, example: 'sms' })
  @IsIn(CHANNELS)
  channel: Channel;

  @ApiProperty({
    type: [String],
    description: `Phone numbers (sms, chat) or e-mail addresses, at most ${MAX_ADD}`,
    example: ['260971234567'],
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ADD)
  @IsString({ each: true })
  @MaxLength(320, { each: true })
  recipients: string[];

  @ApiPropertyOptional({
    enum: TENANT_REASONS,
    default: 'MANUAL',
    description: 'STOP_KEYWORD and BOUNCE record what a recipient did and cannot be given here',
  })
  @IsOptional()
  @IsIn(TENANT_REASONS, {
    message: `reason must be one of ${TENANT_REASONS.join(', ')} (STOP_KEYWORD and BOUNCE come from the recipient only)`,
  })
  reason?: SuppressionReason;
}

export class SuppressionDto {
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel: string;
  @ApiProperty({ example: '260971234567' }) recipient: string;
  @ApiProperty({ enum: SUPPRESSION_REASONS, example: 'STOP_KEYWORD' }) reason: string;
  @ApiProperty({ example: '2026-11-22T20:00:00.000Z' }) created_at: string;
}

export class SuppressionListResponseDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ type: [SuppressionDto] }) data: SuppressionDto[];
  @ApiProperty({ nullable: true, type: String, description: 'null on the last page' }) next_cursor:
    string | null;
}

export class SuppressionChangeResponseDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiPropertyOptional({ example: 1, type: 'integer', description: 'recipients newly listed' })
  added?: number;
  @ApiPropertyOptional({ example: 1, type: 'integer', description: 'recipients taken off the list' })
  removed?: number;
}
