import { Body, Controller, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../../../api-keys/auth/auth-context.js';
import { CredentialCheck } from '../../../api-keys/auth/credential-check.service.js';
import { PREVIEW_DESCRIPTION, PreviewResponseDto } from '../../personalisation/preview.dto.js';
import { previewResponse } from '../../personalisation/preview-response.js';
import { SendService } from '../../send.service.js';
import { ChatSendDto } from './chat-send.dto.js';
import { chatInput } from './chat-input.js';
import { ChatPolicy } from './chat.policy.js';
import { RateLimitByRecipients } from '../../../api-keys/auth/rate-limit.guard.js';

@ApiTags('chat')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/chat/preview')
export class ChatPreviewController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: ChatPolicy,
    private readonly credentials: CredentialCheck,
  ) {}

  @Post()
  @HttpCode(200)
  @RateLimitByRecipients()
  @ApiOperation({
    summary: 'What a chat send would do: recipients and cost; username and password as for the send',
    description: PREVIEW_DESCRIPTION,
  })
  @ApiOkResponse({ type: PreviewResponseDto })
  @ApiErrors([400, 401, 403, 413, 415, 429, 500, 503])
  async preview(@Auth() auth: AuthContext, @Body() dto: ChatSendDto, @Ip() ip: string) {
    // As the send: the body's credentials are checked before anything else is looked at.
    await this.credentials.verify(auth, dto.username, dto.password, ip);
    return previewResponse(await this.sends.preview(this.policy, auth, chatInput(dto)));
  }
}
