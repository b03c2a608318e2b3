import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '../../platform/errors/app.exception.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext, type DataSide } from '../api-keys/auth/auth-context.js';
import { ReadSide, SubaccountReadable } from '../api-keys/auth/subaccount-scope.guard.js';
import { CHANNELS, type Channel } from '../messages/channel.js';
import {
  AddSuppressionsDto,
  SuppressionChangeResponseDto,
  SuppressionListQuery,
  SuppressionListResponseDto,
} from './suppressions.dto.js';
import type { ListOwner } from './suppression.store.js';
import { SuppressionsService } from './suppressions.service.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';

/** A test key keeps and reads the account's test list; a live key its live list. */
function listOwner(auth: AuthContext): ListOwner {
  return { accountId: auth.account.id, testMode: auth.key.mode === 'test' };
}

function channelParam(value: string): Channel {
  if (!(CHANNELS as readonly string[]).includes(value))
    throw AppException.validation([{ field: 'channel', message: `one of ${CHANNELS.join(', ')}` }]);
  return value as Channel;
}

@ApiTags('suppressions')
@ApiKeyAuth()
@Controller('api/v1/json/suppressions')
export class SuppressionsController {
  constructor(private readonly suppressions: SuppressionsService) {}

  @Get()
  @ApiOperation({
    summary: 'The suppression list: recipients no send reaches, cursor paged',
    description:
      'A test key reads and changes the account’s test list (what its test sends are checked against), a live key the live list.',
  })
  @ApiOkResponse({ type: SuppressionListResponseDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  @SubaccountReadable()
  async list(@ReadSide() side: DataSide, @Query() q: SuppressionListQuery) {
    const limit = Number(q.limit ?? 100);
    const page = await this.suppressions.list(side, q.channel ?? null, q.cursor, limit);
    return { success: true, ...page };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Add recipients to the suppression list (reason MANUAL by default)' })
  @ApiOkResponse({ type: SuppressionChangeResponseDto })
  @Idempotent()
  @ApiErrors([400, 401, 403, 409, 413, 422, 415, 429, 500, 503])
  async add(@Auth() auth: AuthContext, @Body() dto: AddSuppressionsDto) {
    const { added } = await this.suppressions.add(listOwner(auth), dto.channel, dto.recipients, dto.reason);
    return { success: true, added };
  }

  @Delete(':channel/:recipient')
  @HttpCode(200)
  @ApiOperation({ summary: 'Take one recipient off the suppression list' })
  @ApiParam({ name: 'channel', enum: CHANNELS })
  @ApiParam({ name: 'recipient', example: '260971234567' })
  @ApiOkResponse({ type: SuppressionChangeResponseDto })
  @ApiErrors([400, 401, 403, 404, 429, 500, 503])
  async remove(
    @Auth() auth: AuthContext,
    @Param('channel') channel: string,
    @Param('recipient') recipient: string,
  ) {
    const { removed } = await this.suppressions.removeOne(listOwner(auth), channelParam(channel), recipient);
    return { success: true, removed };
  }
}
