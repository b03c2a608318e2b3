import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { BalancesDto } from '../balance/balance-response.dto.js';
import { CHANNELS } from '../messages/channel.js';
import { IsWholeNumberFrom } from '../../platform/validation/validators.js';

/**
 * Request bodies declare their fields for the whitelist; values are checked in subaccount-input.ts.
 * The fields are typed `unknown`, so the document's type of each is named.
 */

export class CreateSubaccountDto {
  @ApiProperty({
    type: String,
    description: '3-64 characters: letters, digits, . _ @ -; unique across all accounts',
    example: 'acme-retail',
  })
  @IsOptional()
  username?: unknown;

  @ApiPropertyOptional({
    type: String,
    description: 'A display name, at most 100 characters',
    example: 'ACME Retail Ltd',
  })
  @IsOptional()
  name?: unknown;
}

export class TransferDto {
  @ApiProperty({ enum: CHANNELS, example: 'sms' })
  @IsOptional()
  channel?: unknown;

  @ApiProperty({
    description:
      'At most 6 decimal places, not zero: > 0 moves credit from the parent to the sub-account, < 0 from the sub-account back to the parent. A number or a decimal string.',
    oneOf: [{ type: 'number' }, { type: 'string' }],
    example: 25.5,
  })
  @IsOptional()
  amount?: unknown;
}

export class SubaccountKeyDto {
  @ApiProperty({ type: String, description: '1-100 characters', example: 'production' })
  @IsOptional()
  name?: unknown;

  @ApiPropertyOptional({ enum: ['live', 'test'], default: 'live' })
  @IsOptional()
  mode?: unknown;

  @ApiPropertyOptional({
    description: 'Most the key may spend per UTC day, in the account currency',
    oneOf: [{ type: 'number' }, { type: 'string' }],
    example: '50.00',
  })
  @IsOptional()
  daily_limit?: unknown;

  @ApiPropertyOptional({
    type: String,
    description:
      "N requests per SECONDS; at most what the parent's most generous key allows (as many per window, no higher rate per second), else 400 naming rate_limit. Without it, the default rate limit, capped the same way",
    example: '100/1',
  })
  @IsOptional()
  rate_limit?: unknown;
}

export class SubaccountListQuery {
  @ApiPropertyOptional({ description: 'The next_cursor of the previous page', maxLength: 100 })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  cursor?: string;

  @ApiPropertyOptional({ description: 'Sub-accounts per page, at most 1000 (default 100)', example: '100' })
  @IsOptional()
  @IsWholeNumberFrom(1, 1000)
  limit?: string;
}

export class SubaccountCreatedDto {
  @ApiProperty({ example: 'acme-retail' }) username: string;
  @ApiProperty({ example: 'reseller' }) parent: string;
  @ApiProperty({ nullable: true, type: String, example: 'ACME Retail Ltd' }) name: string | null;
  @ApiProperty({ enum: ['active', 'suspended'], example: 'active' }) status: string;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class ChannelUsageDto {
  @ApiProperty({ type: 'integer', example: 12, description: 'units charged and not refunded' }) units: number;
  @ApiProperty({ example: 3 }) cost: number;
}

export class MonthUsageDto {
  @ApiProperty({ example: '2026-11', description: 'The current UTC month' }) month: string;
  @ApiProperty({ type: ChannelUsageDto }) sms: ChannelUsageDto;
  @ApiProperty({ type: ChannelUsageDto }) email: ChannelUsageDto;
  @ApiProperty({ type: ChannelUsageDto }) chat: ChannelUsageDto;
}

export class SubaccountDto extends SubaccountCreatedDto {
  @ApiProperty({ example: 'ZMW', description: "The parent's" }) currency: string;
  @ApiProperty({
    type: BalancesDto,
    description:
      "Per channel: balance, the price the sub-account pays (its own, else its parent's) and credits",
  })
  balances: BalancesDto;
  @ApiProperty({
    type: MonthUsageDto,
    description:
      "This UTC month's live messages, charged and not refunded; figures up to a minute old (each sub-account's month is summed at most once a minute per API process)",
  })
  usage: MonthUsageDto;
}

export class SubaccountListDto {
  @ApiProperty({ type: [SubaccountDto] }) subaccounts: SubaccountDto[];
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Pass as cursor for the next page; null at the end',
  })
  next_cursor: string | null;
}

export class TransferResultDto {
  @ApiProperty({ example: '42' }) transfer_id: string;
  @ApiProperty({ enum: CHANNELS, example: 'sms' }) channel: string;
  @ApiProperty({ example: 25.5 }) amount: number;
  @ApiProperty({ example: 974.5 }) parent_balance: number;
  @ApiProperty({ example: 25.5 }) subaccount_balance: number;
  @ApiProperty({ example: 'ZMW' }) currency: string;
}

export class SubaccountKeyViewDto {
  @ApiProperty({ example: '17' }) id: string;
  @ApiProperty({ example: 'production' }) name: string;
  @ApiProperty({ example: 'acme-retail' }) username: string;
  @ApiProperty({ example: 'bmk_27HVtQjCJnjB' }) key_prefix: string;
  @ApiProperty({ enum: ['live', 'test'] }) mode: string;
  @ApiProperty({ enum: ['active', 'revoked', 'expired'] }) status: string;
  @ApiProperty({ type: [String] }) allowed_ips: string[];
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) expires_at: string | null;
  @ApiProperty({ nullable: true, type: String, example: '100/1' }) rate_limit: string | null;
  @ApiProperty({ nullable: true, type: Number, example: 50 }) daily_limit: number | null;
  @ApiProperty({ enum: ['high', 'normal'] }) priority: string;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) revoked_at: string | null;
  @ApiProperty({ nullable: true, type: String, format: 'date-time' }) last_used_at: string | null;
  @ApiProperty({ format: 'date-time' }) created_at: string;
}

export class SubaccountKeyCreatedDto extends SubaccountKeyViewDto {
  @ApiProperty({
    description: 'The key itself: shown this once only',
    example: 'bmk_27HVtQjCJnjBF9GbVZsmOVjC8K5rvH5jS03-PG-9Z3M',
  })
  key: string;
}
