import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { SmsSendResponseDto, SMS_SEND_EXAMPLE, smsResponse } from './sms-response.dto.js';
import { Auth, type AuthContext, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { SendService } from '../../send.service.js';
import { SmsSendDto } from './sms-send.dto.js';
import { smsInput } from './sms-input.js';
import { SmsPolicy } from './sms.policy.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

@ApiTags('sms')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/sms')
export class SmsController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: SmsPolicy,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send one SMS text to one or many recipients' })
  @ApiOkResponse({
    type: SmsSendResponseDto,
    example: SMS_SEND_EXAMPLE,
    description: 'Accepted: stored, charged and queued; one data entry per recipient',
  })
  @Idempotent()
  @ApiErrors([400, 401, 402, 403, 409, 413, 422, 415, 429, 500, 503])
  async send(@Auth() auth: AuthContext, @Req() req: AuthedRequest, @Body() dto: SmsSendDto) {
    return smsResponse(await this.sends.send(this.policy, auth, smsInput(dto), claimOf(req)));
  }
}
