import { ApiProperty } from '@nestjs/swagger';
import type { Account } from '../accounts/account.entity.js';
import type { AccountChannel } from '../accounts/account-channel.entity.js';
import { creditsOf, sum, toNumber } from '../../platform/money/money.js';

/** The balance answer (and a sub-account's balances): its OpenAPI shape and the mapper. */

export class ChannelBalanceDto {
  @ApiProperty({ example: 19687.5 }) balance_value: number;
  @ApiProperty({ example: 1.25 }) cost_per_unit: number;
  @ApiProperty({ example: 15750, type: 'integer', description: 'floor(balance_value / cost_per_unit)' })
  credits: number;
}

export class BalancesDto {
  @ApiProperty({ type: ChannelBalanceDto }) email: ChannelBalanceDto;
  @ApiProperty({ type: ChannelBalanceDto }) sms: ChannelBalanceDto;
  @ApiProperty({ type: ChannelBalanceDto }) chat: ChannelBalanceDto;
}

export class BalanceResponseDto {
  @ApiProperty({ example: 'success' }) status: string;
  @ApiProperty({ example: 'active' }) account_status: string;
  @ApiProperty({ example: '8d3f4c1e-2b7a-4f0e-9c55-6a1d2e3f4b5c' }) client_id: string;
  @ApiProperty({ example: 'ZMW' }) currency: string;
  @ApiProperty({ example: '2025-11-26T19:14:30.578Z', format: 'date-time' }) last_updated: string;
  @ApiProperty({ example: 59062.5, description: 'sum of the channel balance values' }) total_value: number;
  @ApiProperty({ type: BalancesDto }) balances: BalancesDto;
}

/** Each channel's value, the price the account pays per unit, and the credits that buys. */
export function channelBalances(rows: AccountChannel[]): BalancesDto {
  const balances = {} as BalancesDto;
  for (const ch of ['email', 'sms', 'chat'] as const) {
    const row = rows.find((r) => r.channel === ch);
    const value = row?.balance ?? '0';
    const price = row?.costPerUnit ?? '0';
    balances[ch] = {
      balance_value: toNumber(value),
      cost_per_unit: toNumber(price),
      credits: creditsOf(value, price),
    };
  }
  return balances;
}

export function balanceResponse(account: Account, rows: AccountChannel[]): BalanceResponseDto {
  let lastUpdated = account.createdAt;
  for (const row of rows) if (row.updatedAt > lastUpdated) lastUpdated = row.updatedAt;
  return {
    status: 'success',
    account_status: account.status,
    client_id: account.clientId,
    currency: account.currency,
    last_updated: lastUpdated.toISOString(),
    total_value: toNumber(sum(rows.map((r) => r.balance))),
    balances: channelBalances(rows),
  };
}
