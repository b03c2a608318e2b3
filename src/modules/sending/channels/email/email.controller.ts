import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { EmailSendResponseDto, EMAIL_SEND_EXAMPLE } from '../../../../platform/openapi/responses.js';
import { authOf, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { SendService } from '../../send.service.js';
import type { SendOutcome } from '../../send.types.js';
import { EmailSendDto } from './email-send.dto.js';
import { emailInput } from './email-input.js';
import { EmailPolicy } from './email.policy.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

/** message_id is the numeric message id, not the UUID. */
export function emailResponse(o: SendOutcome) {
  return {
    api_reference: o.apiReference,
    data: o.entries.map((e) => ({
      email_address: e.recipient,
      message_id: e.messageId,
      status: e.status,
      ...(e.reason ? { reason: e.reason } : {}),
      ...(e.sendAt ? { send_at: e.sendAt.toISOString() } : {}),
    })),
    message: 'successful',
    success: true,
    ...(o.sendAt ? { send_at: o.sendAt } : {}),
  };
}

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
  async send(@Req() req: AuthedRequest, @Body() dto: EmailSendDto) {
    return emailResponse(
      await this.sends.send(
        this.policy,
        authOf(req),
        emailInput(dto as Record<string, unknown>),
        claimOf(req),
      ),
    );
  }
}
