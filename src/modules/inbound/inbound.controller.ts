import { Controller, Get, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { IsInstant, IsWholeNumberFrom } from '../../platform/validation/validators.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import {
  cursorTag,
  decodeIdCursor,
  encodeIdCursor,
  refuseCursorPast,
} from '../../platform/http/id-cursor.js';
import type { DataSide } from '../api-keys/auth/auth-context.js';
import {
  ReadSide,
  SubaccountQueryField,
  SubaccountReadable,
} from '../api-keys/auth/subaccount-scope.guard.js';
import { InboundStore, type InboundRow } from './inbound.store.js';

const MAX_LIMIT = 1000;

export class InboundListQuery {
  @ApiPropertyOptional({
    description:
      'Only messages received at or after this time: a date (UTC midnight) or a date and time with its offset',
    example: '2026-11-22T00:00:00Z',
  })
  @IsOptional()
  @IsInstant()
  since?: string;

  @ApiPropertyOptional({ description: 'Only messages written to this number', example: '26012345' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  to?: string;

  @ApiPropertyOptional({ description: 'The next_cursor of the previous page' })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  cursor?: string;

  @ApiPropertyOptional({ description: `At most ${MAX_LIMIT} (default 100)`, pattern: '^\\d+$' })
  @IsOptional()
  @IsWholeNumberFrom(1, MAX_LIMIT)
  limit?: string;

  @SubaccountQueryField()
  subaccount?: string;
}

export class InboundMessageDto {
  @ApiProperty({ example: '0b6f7c1e-4d0a-4a4e-9d0e-7c5b8a1f2e3d' }) inbound_id: string;
  @ApiProperty({ example: '260971234567' }) from: string;
  @ApiProperty({ example: '26012345' }) to: string;
  @ApiProperty({ example: 'STOP' }) text: string;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'STOP',
    description: 'STOP, START or HELP when recognised, else the short-code keyword that routed it, else null',
  })
  keyword: string | null;
  @ApiProperty({ example: '2026-11-22T20:00:00.000Z' }) received_at: string;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'message_id of the latest SMS the account sent to this number within 7 days',
  })
  in_reply_to: string | null;
}

export class InboundListResponseDto {
  @ApiProperty({ example: true }) success: boolean;
  @ApiProperty({ type: [InboundMessageDto] }) data: InboundMessageDto[];
  @ApiProperty({ nullable: true, type: String, description: 'null on the last page' }) next_cursor:
    string | null;
}

export function inboundView(r: InboundRow) {
  return {
    inbound_id: r.uuid,
    from: r.sender,
    to: r.recipient,
    text: r.text,
    keyword: r.keyword,
    received_at: r.received_at.toISOString(),
    in_reply_to: r.in_reply_to,
  };
}

@ApiTags('inbound')
@ApiKeyAuth()
@Controller('api/v1/json/inbound')
export class InboundController {
  constructor(private readonly store: InboundStore) {}

  @Get()
  @ApiOperation({
    summary: 'Inbound SMS received on the account’s numbers, oldest first, cursor paged',
    description:
      'A test key reads the account’s test side (its test recipients’ replies), a live key the live side.',
  })
  @ApiOkResponse({ type: InboundListResponseDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  async list(@ReadSide() side: DataSide, @Query() q: InboundListQuery) {
    const limit = Number(q.limit ?? 100);
    const to = q.to?.trim().replace(/^\+/, '');
    // Checked, not only shaped: given for the same account, side and filters, and not past the newest message.
    const tag = cursorTag([side.accountId, side.testMode, q.since ?? null, to || null]);
    const after = q.cursor ? decodeIdCursor(q.cursor, tag) : null;
    if (after !== null) refuseCursorPast(after, await this.store.newestId());
    const rows = await this.store.page(
      side.accountId,
      side.testMode,
      { since: q.since ? new Date(q.since) : undefined, to: to || undefined },
      after,
      limit + 1,
    );
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      success: true,
      data: page.map(inboundView),
      next_cursor: rows.length > limit && last ? encodeIdCursor(last.id, tag) : null,
    };
  }
}
