import { Module } from '@nestjs/common';
import { BalanceModule } from '../balance/balance.module.js';
import { RoutingModule } from '../delivery/smpp/routing.module.js';
import { LookupController } from './lookup.controller.js';
import { LookupService } from './lookup.service.js';

/** GET /api/v1/json/lookup/{number}: what the number plan says of a number, and its SMS price. */
@Module({
  imports: [BalanceModule, RoutingModule],
  controllers: [LookupController],
  providers: [LookupService],
})
export class LookupHttpModule {}
