import { Body, Controller, Get, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { BalanceResponseDto } from './balance-response.dto.js';
import { Auth, type AuthContext } from '../api-keys/auth/auth-context.js';
import { CredentialCheck } from '../api-keys/auth/credential-check.service.js';
import { BalanceRequestDto } from './balance-request.dto.js';
import { BalanceService } from './balance.service.js';

@ApiTags('balance')
@ApiKeyAuth()
@Controller('api/v1/json/balance')
export class BalanceController {
  constructor(
    private readonly credentials: CredentialCheck,
    private readonly balances: BalanceService,
  ) {}

  @Get()
  @ApiOperation({
    summary: 'Balance per channel, with the API key alone',
    description:
      'The same answer as the POST form, which the interface keeps for clients that send username and password.',
  })
  @ApiOkResponse({ type: BalanceResponseDto })
  @ApiErrors([401, 403, 429, 500, 503])
  async current(@Auth() auth: AuthContext) {
    return this.balances.report(auth.account);
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Balance per channel; credits = floor(balance_value / cost_per_unit)',
    description:
      'The interface form: username and password in the body beside the key. GET needs the key alone.',
  })
  @ApiOkResponse({ type: BalanceResponseDto })
  @ApiErrors([400, 401, 403, 413, 415, 429, 500, 503])
  async balance(@Auth() auth: AuthContext, @Body() dto: BalanceRequestDto, @Ip() ip: string) {
    await this.credentials.verify(auth, dto.username, dto.password, ip);
    return this.balances.report(auth.account);
  }
}
