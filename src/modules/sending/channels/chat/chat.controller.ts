import { Body, Controller, HttpCode, Ip, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { ChatSendResponseDto, chatResponse } from './chat-response.dto.js';
import { Auth, type AuthContext, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { CredentialCheck } from '../../../api-keys/auth/credential-check.service.js';
import { SendService } from '../../send.service.js';
import { isTestKey } from '../../send-mode.js';
import { ChatSendDto } from './chat-send.dto.js';
import { chatInput } from './chat-input.js';
import { ChatPolicy } from './chat.policy.js';
import { ChatDeliveryEstimator } from './delivery-estimate.service.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

@ApiTags('chat')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/chat')
export class ChatController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: ChatPolicy,
    private readonly credentials: CredentialCheck,
    private readonly estimator: ChatDeliveryEstimator,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a chat-channel message; username and password in the body as well as the key',
  })
  @ApiOkResponse({ type: ChatSendResponseDto })
  @Idempotent()
  @ApiErrors([400, 401, 402, 403, 409, 413, 422, 415, 429, 500, 503])
  async send(
    @Auth() auth: AuthContext,
    @Req() req: AuthedRequest,
    @Body() dto: ChatSendDto,
    @Ip() ip: string,
  ) {
    // Credentials first: a caller with the wrong password learns nothing about the rest of the body.
    await this.credentials.verify(auth, dto.username, dto.password, ip);
    const outcome = await this.sends.send(this.policy, auth, chatInput(dto), claimOf(req));
    const queue = { test: isTestKey(auth), priority: outcome.priority };
    return chatResponse(outcome, await this.estimator.estimate(outcome.acceptedCount, queue));
  }
}
