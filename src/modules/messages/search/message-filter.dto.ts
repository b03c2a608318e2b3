import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, Matches, MaxLength } from 'class-validator';
import { RefuseUnknownParameters } from '../../../platform/validation/strict-query.js';
import { IsWholeNumberFrom, MAX_PAGE_NUMBER } from '../../../platform/validation/validators.js';
import { SubaccountQueryField } from '../../api-keys/auth/subaccount-scope.guard.js';
import { CHANNELS, MESSAGE_STATUSES } from '../channel.js';

/** A date (midnight UTC) or a date and time with its offset: never the server's local time. */
const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const INSTANT_MESSAGE = (field: string) =>
  `${field} must be a date (2026-11-22) or a date and time with its offset (2026-11-22T08:00:00Z)`;

/** The filters shared by the message search, the export and the CLI's `messages export`. */
export class MessageFilterQuery {
  @ApiPropertyOptional({
    description: 'Only this request (the api_reference of a send answer)',
    example: '1764184470578998353',
    pattern: '^\\d{1,20}$',
  })
  @IsOptional()
  @Matches(/^\d{1,20}$/, { message: 'api_reference must be the digits of a send answer' })
  api_reference?: string;

  @ApiPropertyOptional({ enum: MESSAGE_STATUSES, example: 'DELIVERED' })
  @IsOptional()
  @IsIn(MESSAGE_STATUSES, { message: `status must be one of ${MESSAGE_STATUSES.join(', ')}` })
  status?: (typeof MESSAGE_STATUSES)[number];

  @ApiPropertyOptional({ enum: CHANNELS, example: 'sms' })
  @IsOptional()
  @IsIn(CHANNELS, { message: `channel must be one of ${CHANNELS.join(', ')}` })
  channel?: (typeof CHANNELS)[number];

  @ApiPropertyOptional({
    description: 'The recipient as the message lookup shows it (a number in international form, no +)',
    example: '260971234567',
    maxLength: 320,
  })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  recipient?: string;

  @ApiPropertyOptional({
    description: 'The user_reference_id given on the send',
    example: 'inv-2025-0001',
    maxLength: 255,
  })
  @IsOptional()
  @IsString()
  @MaxLength(255)
  user_reference_id?: string;

  @ApiPropertyOptional({
    description: 'Created at or after (inclusive): a date (UTC midnight) or an ISO 8601 time with offset',
    example: '2026-11-22T00:00:00Z',
  })
  @IsOptional()
  @Matches(INSTANT, { message: INSTANT_MESSAGE('created_from') })
  created_from?: string;

  @ApiPropertyOptional({
    description: 'Created before (exclusive): a date (UTC midnight) or an ISO 8601 time with offset',
    example: '2026-11-23T00:00:00Z',
  })
  @IsOptional()
  @Matches(INSTANT, { message: INSTANT_MESSAGE('created_to') })
  created_to?: string;
}

export const SEARCH_ORDERS = ['asc', 'desc'] as const;
export type SearchOrder = (typeof SEARCH_ORDERS)[number];

@RefuseUnknownParameters()
export class MessageSearchQuery extends MessageFilterQuery {
  @ApiPropertyOptional({
    enum: SEARCH_ORDERS,
    default: 'asc',
    description:
      'asc: oldest first (the default; paging on reaches messages accepted meanwhile); desc: newest first (paging starts at the newest message there was at the first page)',
    example: 'desc',
  })
  @IsOptional()
  @IsIn(SEARCH_ORDERS, { message: 'order must be asc or desc' })
  order?: SearchOrder;

  @ApiPropertyOptional({
    description: 'The next_cursor of the previous page (omit for the first page)',
    example: 'MTc2NDE4NDQ3MDU3ODoxNzY0MTg0NDcwNTc4OTk4MzUz',
    maxLength: 128,
  })
  @IsOptional()
  @Matches(/^[A-Za-z0-9_-]{1,128}$/, { message: 'cursor must be the next_cursor of a previous page' })
  cursor?: string;

  @ApiPropertyOptional({
    description: 'Messages per page, 1 to 1000 (default 100)',
    example: '100',
    pattern: '^\\d+$',
  })
  @IsOptional()
  @Matches(/^0*(?:[1-9]\d{0,2}|1000)$/, { message: 'limit must be a whole number from 1 to 1000' })
  limit?: string;

  @ApiPropertyOptional({
    description: 'With api_reference: page number, from 1 (page-numbered answer)',
    example: '1',
    pattern: '^\\d+$',
    maxLength: 9,
  })
  // MAX_PAGE_NUMBER keeps (page - 1) * per_page a safe integer: a longer page number reached MySQL as 1e+22 (500).
  @IsOptional()
  @IsWholeNumberFrom(1, MAX_PAGE_NUMBER)
  page?: string;

  @ApiPropertyOptional({
    description: 'With api_reference and page: messages per page, 1 to 1000 (default 100)',
    example: '100',
    pattern: '^\\d+$',
  })
  @IsOptional()
  @IsWholeNumberFrom(1, 1000)
  per_page?: string;

  @SubaccountQueryField()
  subaccount?: string;
}

export const EXPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

@RefuseUnknownParameters()
export class MessageExportQuery extends MessageFilterQuery {
  @ApiPropertyOptional({ enum: EXPORT_FORMATS, default: 'csv', example: 'csv' })
  @IsOptional()
  @IsIn(EXPORT_FORMATS, { message: 'format must be csv or ndjson' })
  format?: ExportFormat;

  @SubaccountQueryField()
  subaccount?: string;
}
