import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../../../api-keys/auth/auth-context.js';
import { PREVIEW_DESCRIPTION, PreviewResponseDto } from '../../personalisation/preview.dto.js';
import { previewResponse } from '../../personalisation/preview-response.js';
import { SendService } from '../../send.service.js';
import { EmailSendDto } from './email-send.dto.js';
import { emailInput } from './email-input.js';
import { EmailPolicy } from './email.policy.js';
import { RateLimitByRecipients } from '../../../api-keys/auth/rate-limit.guard.js';

@ApiTags('email')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/email/preview')
export class EmailPreviewController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: EmailPolicy,
  ) {}

  @Post()
  @HttpCode(200)
  @RateLimitByRecipients()
  @ApiOperation({
    summary: 'What an e-mail send would do: recipients and cost',
    description: PREVIEW_DESCRIPTION,
  })
  @ApiOkResponse({ type: PreviewResponseDto })
  @ApiErrors([400, 401, 403, 413, 415, 429, 500, 503])
  async preview(@Auth() auth: AuthContext, @Body() dto: EmailSendDto) {
    return previewResponse(await this.sends.preview(this.policy, auth, emailInput(dto)));
  }
}
