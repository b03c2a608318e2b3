import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { BalanceModule } from '../../balance/balance.module.js';
import { ConnectorAdminService } from './connector-admin.service.js';
import { RoutingModule } from './routing.module.js';

/** Connectors, routes and (through balance's store) destination prices as operators manage them (CLI) and see them (the connectors page). */
@Module({
  imports: [RoutingModule, AccountsModule, BalanceModule],
  providers: [ConnectorAdminService],
  exports: [ConnectorAdminService],
})
export class ConnectorAdminModule {}
