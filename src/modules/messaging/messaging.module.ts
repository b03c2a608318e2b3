import { Module } from '@nestjs/common';
import { BalanceModule } from '../balance/balance.module.js';
import { IdGenerator } from './id-generator.js';
import { SendService } from './send.service.js';

@Module({
  imports: [BalanceModule],
  providers: [IdGenerator, SendService],
  exports: [SendService, IdGenerator],
})
export class MessagingModule {}
