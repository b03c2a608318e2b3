import { Controller, Get, Param } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { DataSide } from '../api-keys/auth/auth-context.js';
import { ReadSide, SUBACCOUNT_QUERY_DOC, SubaccountReadable } from '../api-keys/auth/subaccount-scope.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { RequestSummaryService } from './request-summary.service.js';
import { RequestSummaryDto } from './request-summary.dto.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { CHANNELS } from '../messages/channel.js';

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
  @ApiErrors([401, 403, 404, 405, 429, 500, 503])
  @SubaccountReadable()
  summary(@ReadSide() side: DataSide, @Param('apiReference') apiReference: string) {
    // GET /api/v1/json/bulk/sms is a send route asked with the wrong method, not a request id.
    if ((CHANNELS as readonly string[]).includes(apiReference))
      throw new AppException('METHOD_NOT_ALLOWED', `${apiReference} sends answer POST only.`, [], {
        Allow: 'POST',
      });
    return this.summaries.summary(side.accountId, apiReference, side.testMode);
  }
}
