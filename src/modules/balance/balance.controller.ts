import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../common/openapi/api-docs.decorators.js';
import { BalanceResponseDto } from '../../common/openapi/responses.js';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { BalanceRequestDto } from './balance-request.dto.js';
import { BalanceService } from './balance.service.js';

@ApiTags('balance')
@ApiKeyAuth()
@Controller('api/v1/json/balance')
export class BalanceController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Balance per channel; credits = floor(balance_value / cost_per_unit)' })
  @ApiOkResponse({ type: BalanceResponseDto })
  @ApiErrors([400, 401, 403, 413, 415, 429, 500, 503])
  async balance(@Auth() auth: AuthContext, @Body() dto: BalanceRequestDto) {
    await this.accounts.verifyCredentials(auth.account.id, dto.username, dto.password);
    return this.balances.report(auth.account);
  }
}
