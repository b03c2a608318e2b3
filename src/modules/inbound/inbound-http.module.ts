import { AccountsModule } from '../accounts/accounts.module.js';
import { Module } from '@nestjs/common';
import { InboundController } from './inbound.controller.js';
import { InboundModule } from './inbound.module.js';

/** The inbound messages route. */
@Module({
  imports: [AccountsModule, InboundModule],
  controllers: [InboundController],
})
export class InboundHttpModule {}
