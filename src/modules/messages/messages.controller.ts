import { Controller, Get, Param, Query } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiParam,
  ApiProperty,
  ApiPropertyOptional,
  ApiTags,
} from '@nestjs/swagger';
import { IsNumberString, IsOptional, Matches, MaxLength } from 'class-validator';
import { Auth, type AuthContext } from '../api-keys/auth/auth-context.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { MessageDetailDto, MessageListResponseDto } from '../../platform/openapi/responses.js';
import { MessageQueryService } from './message-query.service.js';

export class MessageListQuery {
  @ApiProperty({
    description: 'The api_reference of a send answer',
    example: '1764184470578998353',
    pattern: '^\\d{1,20}$',
  })
  @Matches(/^\d{1,20}$/, { message: 'api_reference must be the digits of a send answer' })
  api_reference: string;

  @ApiPropertyOptional({ description: 'Page number, from 1', example: '1', pattern: '^\\d+$', maxLength: 9 })
  // Nine digits keep (page - 1) * per_page a safe integer: a longer page number reached MySQL as 1e+22 (500).
  @IsOptional()
  @IsNumberString({ no_symbols: true })
  @MaxLength(9, { message: 'page must be at most 999999999' })
  page?: string;

  @ApiPropertyOptional({
    description: 'Messages per page, at most 1000 (default 100)',
    example: '100',
    pattern: '^\\d+$',
  })
  @IsOptional()
  @IsNumberString({ no_symbols: true })
  per_page?: string;
}

@ApiTags('messages')
@ApiKeyAuth()
@Controller('api/v1/json/messages')
export class MessagesController {
  constructor(private readonly messages: MessageQueryService) {}

  @Get()
  @ApiOperation({ summary: 'The messages of one send request, paged' })
  @ApiOkResponse({ type: MessageListResponseDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  list(@Auth() auth: AuthContext, @Query() q: MessageListQuery) {
    const page = Math.max(1, Number(q.page ?? 1));
    const perPage = Math.min(1000, Math.max(1, Number(q.per_page ?? 100)));
    return this.messages.byReference(
      auth.account.id,
      q.api_reference,
      page,
      perPage,
      auth.key.mode === 'test',
    );
  }

  @Get(':messageId')
  @ApiOperation({ summary: 'One message: state, reason, units, cost and history' })
  @ApiParam({
    name: 'messageId',
    description: 'The message_id of a send answer (UUID for SMS and chat, digits for e-mail)',
    example: '01a200fe-0dfd-7511-ad60-13d93139bcee',
  })
  @ApiOkResponse({ type: MessageDetailDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  one(@Auth() auth: AuthContext, @Param('messageId') messageId: string) {
    return this.messages.one(auth.account.id, messageId, auth.key.mode === 'test');
  }
}
