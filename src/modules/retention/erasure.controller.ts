import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../api-keys/auth/auth-context.js';
import { familyRoot } from '../accounts/family.js';
import { EraseRecipientDto, EraseRecipientResponseDto } from './erasure.dto.js';
import { ErasureService } from './erasure.service.js';

@ApiTags('erasure')
@ApiKeyAuth()
@Controller('api/v1/json/recipients')
export class ErasureController {
  constructor(private readonly erasure: ErasureService) {}

  @Post('erase')
  @HttpCode(200)
  @ApiOperation({
    summary: "Erase a recipient's number and message text from the account's data",
    description:
      'Replaces the number (or address) with `erased` and drops the text of every final message to it, the text of ' +
      'requests sent to it alone, and the number and text of inbound messages from it; so too in the payloads of ' +
      'callback events not yet delivered, the kept answers of idempotent requests, request log paths, and the ' +
      'archive, when one is kept. Amounts, states and times stay; the suppression list is not changed. A test key ' +
      'erases test data only. An account (with its sub-accounts) has one erasure running at a time per process, ' +
      'the next ones waiting their turn; past 10 running or waiting, 429 `RATE_LIMITED`.',
  })
  @ApiOkResponse({ type: EraseRecipientResponseDto })
  @ApiErrors([400, 401, 403, 415, 429, 500, 503])
  async erase(@Auth() auth: AuthContext, @Body() dto: EraseRecipientDto) {
    const r = await this.erasure.eraseInTurn(
      familyRoot(auth.account),
      { accountId: auth.account.id, testMode: auth.key.mode === 'test' },
      dto.recipient,
    );
    return { success: true, ...r };
  }
}
