import { Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '../../platform/errors/app.exception.js';
import { Public } from '../../platform/http/public.decorator.js';
import { ApiErrors } from '../../platform/openapi/api-docs.decorators.js';
import { SuppressionChangeResponseDto } from './suppressions.dto.js';
import { UnsubscribeLinks } from './unsubscribe-links.service.js';

/**
 * The one-click unsubscribe target of every e-mail's List-Unsubscribe header (RFC 8058): the
 * mailbox provider POSTs `List-Unsubscribe=One-Click` here on the reader's behalf, without a
 * key. The token is what authorises it. Answering twice is harmless.
 */
@ApiTags('suppressions')
@Public()
@Controller('unsubscribe')
export class UnsubscribeController {
  constructor(private readonly links: UnsubscribeLinks) {}

  @Post(':token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'One-click unsubscribe (RFC 8058): suppresses the e-mail address for the sending account',
  })
  @ApiParam({ name: 'token', description: 'The token of the List-Unsubscribe URL' })
  @ApiOkResponse({ type: SuppressionChangeResponseDto })
  @ApiErrors([404, 429, 500, 503])
  async unsubscribe(@Param('token') token: string) {
    const added = await this.links.unsubscribe(token);
    if (added === null) throw new AppException('NOT_FOUND', 'This unsubscribe link is not known.');
    return { success: true, added };
  }
}
