import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiErrors, ApiKeyAuth } from '../../../platform/openapi/api-docs.decorators.js';
import { CancelResponseDto, RescheduleResponseDto } from './scheduling-response.dto.js';
import { Auth, sideOf, type AuthContext } from '../../api-keys/auth/auth-context.js';
import { CancellationService } from './cancellation.service.js';
import { RescheduleService } from './reschedule.service.js';

export class RescheduleDto {
  @ApiPropertyOptional({
    description:
      'The new time: ISO 8601 with Z or an offset, at most 35 days ahead; past or under 5 s ahead sends now. Required.',
    example: '2026-12-01T09:00:00Z',
    format: 'date-time',
    maxLength: 40,
  })
  @IsOptional()
  @IsString()
  @MaxLength(40)
  send_at?: string;
}

const API_REFERENCE_PARAM = {
  name: 'apiReference',
  description: 'The api_reference of a send answer',
  example: '1764184470578998353',
};

@ApiTags('scheduling')
@ApiKeyAuth()
@Controller('api/v1/json')
export class SchedulingController {
  constructor(
    private readonly cancellation: CancellationService,
    private readonly rescheduling: RescheduleService,
  ) {}

  @Post('bulk/:apiReference/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel every message of a request not yet handed to a provider (refunded)',
    description:
      "SCHEDULED and ACKNOWLEDGED messages end CANCELLED and are refunded; a message being handed over at that moment is sent or cancelled, never both. Repeating it cancels nothing more. Another account's request, or one made with a key of the other mode (test or live), is 404.",
  })
  @ApiParam(API_REFERENCE_PARAM)
  @ApiOkResponse({ type: CancelResponseDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  cancelRequest(@Auth() auth: AuthContext, @Param('apiReference') apiReference: string) {
    return this.cancellation.cancelRequest(sideOf(auth), apiReference);
  }

  @Post('messages/:messageId/cancel')
  @HttpCode(200)
  @ApiOperation({ summary: 'Cancel one message if it has not been handed to a provider yet (refunded)' })
  @ApiParam({
    name: 'messageId',
    description: 'The message_id of a send answer (UUID for SMS and chat, digits for e-mail)',
    example: '01a200fe-0dfd-7511-ad60-13d93139bcee',
  })
  @ApiOkResponse({ type: CancelResponseDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  cancelMessage(@Auth() auth: AuthContext, @Param('messageId') messageId: string) {
    return this.cancellation.cancelMessage(sideOf(auth), messageId);
  }

  @Post('bulk/:apiReference/reschedule')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Move the messages of a request that are still SCHEDULED',
    description:
      "Each goes at the later of the new send_at and its recipient's next send-window opening (the request's " +
      "own send_window, else the account's), as at acceptance; validity counts again from the new send_at. " +
      'The answer gives the new send_at as given; a message a window defers shows its own in its lookup. ' +
      '409 NOT_RESCHEDULABLE when none is still SCHEDULED.',
  })
  @ApiParam(API_REFERENCE_PARAM)
  @ApiOkResponse({ type: RescheduleResponseDto })
  @ApiErrors([400, 401, 403, 404, 409, 413, 415, 429, 500, 503])
  reschedule(
    @Auth() auth: AuthContext,
    @Param('apiReference') apiReference: string,
    @Body() dto: RescheduleDto,
  ) {
    return this.rescheduling.reschedule(auth, apiReference, dto.send_at);
  }
}
