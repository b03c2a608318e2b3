import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { Auth, type AuthContext } from '../../common/auth/auth-context.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { BalanceRequestDto } from './balance-request.dto.js';
import { BalanceService } from './balance.service.js';

@Controller('api/v1/json/balance')
export class BalanceController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
  ) {}

  @Post()
  @HttpCode(200)
  async balance(@Auth() auth: AuthContext, @Body() dto: BalanceRequestDto) {
    await this.accounts.verifyCredentials(auth.account.id, dto.username, dto.password);
    return this.balances.report(auth.account);
  }
}
