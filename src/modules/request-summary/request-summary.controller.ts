import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { DataSide } from '../api-keys/auth/auth-context.js';
import {
  ReadSide,
  SUBACCOUNT_QUERY_DOC,
  SubaccountReadable,
} from '../api-keys/auth/subaccount-scope.guard.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { RequestSummaryService } from './request-summary.service.js';
import { RequestSummaryDto } from './request-summary.dto.js';

@ApiTags('messages')
@ApiKeyAuth()
@Controller('api/v1/json/bulk')
export class RequestSummaryController {
  constructor(private readonly summaries: RequestSummaryService) {}

  @Get(':apiReference')
  @ApiOperation({
    summary: 'One send request at a glance: its messages counted by state, units, cost, refunds',
  })
  @ApiParam({
    name: 'apiReference',
    description: 'The api_reference of a send answer',
    example: '1764184470578998353',
  })
  @ApiOkResponse({ type: RequestSummaryDto })
  @ApiQuery(SUBACCOUNT_QUERY_DOC)
  @ApiErrors([401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  summary(@ReadSide() side: DataSide, @Param('apiReference') apiReference: string) {
    return this.summaries.summary(side.accountId, apiReference, side.testMode);
  }
}
