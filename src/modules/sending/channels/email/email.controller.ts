import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { EmailSendResponseDto, EMAIL_SEND_EXAMPLE, emailResponse } from './email-response.dto.js';
import { Auth, type AuthContext, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { SendService } from '../../send.service.js';
import { EmailSendDto } from './email-send.dto.js';
import { emailInput } from './email-input.js';
import { EmailPolicy } from './email.policy.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

@ApiTags('email')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/email')
export class EmailController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: EmailPolicy,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Send one e-mail to one or many recipients' })
  @ApiOkResponse({
    type: EmailSendResponseDto,
    example: EMAIL_SEND_EXAMPLE,
    description: 'Accepted: one data entry per recipient',
  })
  @Idempotent()
  @ApiErrors([400, 401, 402, 403, 409, 413, 422, 415, 429, 500, 503])
  async send(@Auth() auth: AuthContext, @Req() req: AuthedRequest, @Body() dto: EmailSendDto) {
    return emailResponse(await this.sends.send(this.policy, auth, emailInput(dto), claimOf(req)));
  }
}
