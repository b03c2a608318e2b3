import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { AppException } from '../../platform/errors/app.exception.js';
import { ApiErrors, ApiKeyAuth } from '../../platform/openapi/api-docs.decorators.js';
import { Auth, type AuthContext } from '../api-keys/auth/auth-context.js';
import { Idempotent } from '../idempotency/idempotent.decorator.js';
import {
  CreateSubaccountDto,
  SubaccountCreatedDto,
  SubaccountDto,
  SubaccountKeyCreatedDto,
  SubaccountKeyDto,
  SubaccountKeyViewDto,
  SubaccountListDto,
  SubaccountListQuery,
  TransferDto,
  TransferResultDto,
} from './subaccount.dto.js';
import { SubaccountsService } from './subaccounts.service.js';

const USERNAME = { name: 'username', description: "The sub-account's username", example: 'acme-retail' };

/** Changes need a live key: a test key never moves money nor makes accounts and keys. */
function live(auth: AuthContext): AuthContext {
  if (auth.key.mode !== 'live')
    throw new AppException(
      'FORBIDDEN',
      'Sub-accounts, their keys and transfers are managed with a live key only.',
    );
  return auth;
}

@ApiTags('subaccounts')
@ApiKeyAuth()
@Controller('api/v1/json/subaccounts')
export class SubaccountsController {
  constructor(private readonly subaccounts: SubaccountsService) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a sub-account of the key’s account (a live key of a top-level account)',
    description:
      "The sub-account has the parent's currency, pays the parent's prices until an operator sets its own, starts with a balance of 0 on every channel, and has no password.",
  })
  @ApiCreatedResponse({ type: SubaccountCreatedDto })
  @Idempotent()
  @ApiErrors([400, 401, 403, 409, 413, 415, 422, 429, 500, 503])
  create(@Auth() auth: AuthContext, @Body() dto: CreateSubaccountDto) {
    return this.subaccounts.create(live(auth).account, dto);
  }

  @Get()
  @ApiOperation({
    summary:
      'The key’s account’s sub-accounts, oldest first, cursor paged, with balances and this month’s usage',
  })
  @ApiOkResponse({ type: SubaccountListDto })
  @ApiErrors([400, 401, 403, 429, 500, 503])
  list(@Auth() auth: AuthContext, @Query() q: SubaccountListQuery) {
    return this.subaccounts.list(auth.account, q);
  }

  @Get(':username')
  @ApiOperation({ summary: 'One sub-account; another account’s is 404' })
  @ApiParam(USERNAME)
  @ApiOkResponse({ type: SubaccountDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  show(@Auth() auth: AuthContext, @Param('username') username: string) {
    return this.subaccounts.show(auth.account, username);
  }

  @Post(':username/transfers')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Move credit between the parent and a sub-account (amount > 0 to it, < 0 back)',
    description:
      'Atomic and exact: both balances change in one transaction with a ledger row each, or neither does. A balance never goes below zero: 402 INSUFFICIENT_BALANCE says whose balance is short.',
  })
  @ApiParam(USERNAME)
  @ApiOkResponse({ type: TransferResultDto })
  @Idempotent()
  @ApiErrors([400, 401, 402, 403, 404, 409, 413, 415, 422, 429, 500, 503])
  transfer(@Auth() auth: AuthContext, @Param('username') username: string, @Body() dto: TransferDto) {
    return this.subaccounts.transfer(live(auth).account, username, dto);
  }

  @Post(':username/keys')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create an API key for a sub-account; the key is shown once' })
  @ApiParam(USERNAME)
  @ApiCreatedResponse({ type: SubaccountKeyCreatedDto })
  @Idempotent({
    secret: {
      field: 'key',
      replay: (first) =>
        `The first request with this Idempotency-Key created key ${String(first.id)} of the sub-account ${String(first.username)}; its secret was shown once, in that answer, and is not kept. If that answer was lost, revoke key ${String(first.id)} and create another.`,
    },
  })
  @ApiErrors([400, 401, 403, 404, 409, 413, 415, 422, 429, 500, 503])
  createKey(@Auth() auth: AuthContext, @Param('username') username: string, @Body() dto: SubaccountKeyDto) {
    return this.subaccounts.createKey(live(auth).account, username, dto);
  }

  @Delete(':username/keys/:keyId')
  @ApiOperation({ summary: 'Revoke a sub-account’s API key' })
  @ApiParam(USERNAME)
  @ApiParam({ name: 'keyId', description: 'The id given when the key was created', example: '17' })
  @ApiOkResponse({ type: SubaccountKeyViewDto })
  @ApiErrors([401, 403, 404, 429, 500, 503])
  revokeKey(@Auth() auth: AuthContext, @Param('username') username: string, @Param('keyId') keyId: string) {
    return this.subaccounts.revokeKey(live(auth).account, username, keyId);
  }
}
