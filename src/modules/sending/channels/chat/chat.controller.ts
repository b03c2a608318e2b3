import { Body, Controller, HttpCode, Ip, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { ChatSendResponseDto } from '../../../../platform/openapi/responses.js';
import { authOf, type AuthedRequest } from '../../../api-keys/auth/auth-context.js';
import { CredentialCheck } from '../../../api-keys/auth/credential-check.service.js';
import { toNumber } from '../../../../platform/money/money.js';
import { SendService } from '../../send.service.js';
import { isTestKey } from '../../send-mode.js';
import type { SendOutcome } from '../../send.types.js';
import { ChatSendDto } from './chat-send.dto.js';
import { chatInput } from './chat-input.js';
import { ChatPolicy } from './chat.policy.js';
import { ChatDeliveryEstimator } from './delivery-estimate.service.js';
import { Idempotent } from '../../../idempotency/idempotent.decorator.js';
import { claimOf } from '../../../idempotency/idempotency.guard.js';

/**
 * `count` is the messages queued (accepted recipients only). Invalid recipients are
 * not sent, counted or charged; since this answer has no per-recipient list,
 * they are named in `rejected: [{recipient, reason}]`, present only when there are any so a
 * clean request gets exactly the documented shape.
 */
export function chatResponse(o: SendOutcome, estimatedDelivery: string) {
  const rejected = o.entries
    .filter((e) => e.status === 'REJECTED')
    .map((e) => ({ recipient: e.recipient, reason: e.reason ?? 'INVALID_NUMBER' }));
  // No per-recipient list here either: those a send window deferred are named with their send_at.
  const scheduled = o.entries.flatMap((e) =>
    e.sendAt ? [{ recipient: e.recipient, send_at: e.sendAt.toISOString() }] : [],
  );
  return {
    cost: toNumber(o.cost),
    count: o.acceptedCount,
    currency: o.currency,
    estimated_delivery: estimatedDelivery,
    message: 'Chat messages queued successfully',
    reference: o.apiReference,
    status: 'success',
    ...(rejected.length ? { rejected } : {}),
    ...(scheduled.length ? { scheduled } : {}),
    ...(o.sendAt ? { send_at: o.sendAt } : {}),
  };
}

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
  async send(@Req() req: AuthedRequest, @Body() dto: ChatSendDto, @Ip() ip: string) {
    const auth = authOf(req);
    // Credentials first: a caller with the wrong password learns nothing about the rest of the body.
    await this.credentials.verify(auth, dto.username, dto.password, ip);
    const outcome = await this.sends.send(
      this.policy,
      auth,
      chatInput(dto as Record<string, unknown>),
      claimOf(req),
    );
    const queue = { test: isTestKey(auth), priority: outcome.priority };
    return chatResponse(outcome, await this.estimator.estimate(outcome.acceptedCount, queue));
  }
}
