import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../../../api-keys/auth/auth-context.js';
import { PREVIEW_DESCRIPTION, PreviewResponseDto } from '../../personalisation/preview.dto.js';
import { previewResponse } from '../../personalisation/preview-response.js';
import { SendService } from '../../send.service.js';
import { SmsSendDto } from './sms-send.dto.js';
import { smsInput } from './sms-input.js';
import { SmsPolicy } from './sms.policy.js';
import { RateLimitByRecipients } from '../../../api-keys/auth/rate-limit.guard.js';

@ApiTags('sms')
@ApiKeyAuth()
@Controller('api/v1/json/bulk/sms/preview')
export class SmsPreviewController {
  constructor(
    private readonly sends: SendService,
    private readonly policy: SmsPolicy,
  ) {}

  @Post()
  @HttpCode(200)
  @RateLimitByRecipients()
  @ApiOperation({
    summary: 'What an SMS send would do: parts, encoding and cost per recipient',
    description: PREVIEW_DESCRIPTION,
  })
  @ApiOkResponse({ type: PreviewResponseDto })
  @ApiErrors([400, 401, 403, 413, 415, 429, 500, 503])
  async preview(@Auth() auth: AuthContext, @Body() dto: SmsSendDto) {
    return previewResponse(await this.sends.preview(this.policy, auth, smsInput(dto)));
  }
}
