import { Controller, Get, Param, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { familyRoot } from '../accounts/family.js';
import { Auth, type AuthContext, type DataSide } from '../api-keys/auth/auth-context.js';
import {
  ReadSide,
  SUBACCOUNT_QUERY_DOC,
  SubaccountReadable,
} from '../api-keys/auth/subaccount-scope.guard.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { MessageDetailDto } from './message-response.dto.js';
import { MessageQueryService } from './message-query.service.js';
import { MessageExportQuery, MessageSearchQuery } from './search/message-filter.dto.js';
import { MessageExportHttp } from './search/message-export.http.js';
import { MessageSearchService } from './search/message-search.service.js';
import { EXPORT_EXAMPLES, MessageSearchResponseDto } from './search/search-responses.dto.js';

@ApiTags('messages')
@ApiKeyAuth()
@Controller('api/v1/json/messages')
export class MessagesController {
  constructor(
    private readonly messages: MessageQueryService,
    private readonly search: MessageSearchService,
    private readonly exports: MessageExportHttp,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Search messages, oldest first (order=desc: newest first), with cursor paging',
    description:
      'Filters combine (AND). Without page/per_page the answer is cursor-paged: pass next_cursor as cursor ' +
      'until it is null. api_reference alone, or with page/per_page, gives the page-numbered list of one ' +
      'request (page, per_page, total). An unknown parameter, or a cursor given under other filters or ' +
      'another order, is a 400.',
  })
  @ApiOkResponse({ type: MessageSearchResponseDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  list(@ReadSide() side: DataSide, @Query() q: MessageSearchQuery) {
    return this.search.search(side.accountId, q, side.testMode);
  }

  // Declared before ':messageId', which would otherwise take "export" for a message id.
  @Get('export')
  @ApiOperation({
    summary: 'Export messages as CSV or NDJSON, streamed',
    description:
      'The same filters as the search; every matching message, oldest first, as an attachment. Columns: ' +
      'message_id, api_reference, user_reference_id, channel, recipient, status, reason, units, cost, ' +
      'currency, created_at, updated_at, then fallback_message_id (a chat message: its fallback SMS) and ' +
      'fallback_of (a fallback SMS: its chat message), empty in CSV and null in NDJSON when there is no link. ' +
      'A response cut short (no final chunk) is an incomplete export. ' +
      "A CSV cell starting with =, +, -, @, tab or CR is written with a leading ' (no spreadsheet formulas). " +
      'An unknown parameter is a 400; an account and its sub-accounts together run at most EXPORTS_PER_ACCOUNT exports at once (429 beyond), ' +
      'and an export whose client takes nothing for EXPORT_STALL_SECONDS is cut.',
  })
  @ApiProduces('text/csv', 'application/x-ndjson')
  @ApiOkResponse({
    description: 'The messages, one per line (CSV with a header line, or one JSON object per line)',
    content: {
      'text/csv': { schema: { type: 'string' }, example: EXPORT_EXAMPLES.csv },
      'application/x-ndjson': { schema: { type: 'string' }, example: EXPORT_EXAMPLES.ndjson },
    },
  })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  async export(
    @Auth() auth: AuthContext,
    @ReadSide() side: DataSide,
    @Query() q: MessageExportQuery,
    @Res() res: Response,
  ) {
    await this.exports.send(familyRoot(auth.account), side.accountId, q, res, side.testMode);
  }

  @Get(':messageId')
  @ApiOperation({ summary: 'One message: state, reason, units, cost and history' })
  @ApiParam({
    name: 'messageId',
    description: 'The message_id of a send answer (UUID for SMS and chat, digits for e-mail)',
    example: '01a200fe-0dfd-7511-ad60-13d93139bcee',
  })
  @ApiOkResponse({ type: MessageDetailDto })
  @ApiQuery(SUBACCOUNT_QUERY_DOC)
  @ApiErrors([401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  one(@ReadSide() side: DataSide, @Param('messageId') messageId: string) {
    return this.messages.one(side.accountId, messageId, side.testMode);
  }
}
