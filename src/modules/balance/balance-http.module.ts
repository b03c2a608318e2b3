import { Module } from '@nestjs/common';
import { CredentialsModule } from '../api-keys/auth/credentials.module.js';
import { BalanceController } from './balance.controller.js';
import { BalanceModule } from './balance.module.js';

/** The balance endpoint, apart from BalanceService so that the CLI can use the service without the HTTP auth. */
@Module({
  imports: [BalanceModule, CredentialsModule],
  controllers: [BalanceController],
})
export class BalanceHttpModule {}
