import { Module } from '@nestjs/common';
import { AccountsModule } from '../../accounts/accounts.module.js';
import { ConnectorAdminService } from './connector-admin.service.js';
import { RoutingModule } from './routing.module.js';

/** Connectors, routes and prices as operators manage them (CLI) and see them (the connectors page). */
@Module({
  imports: [RoutingModule, AccountsModule],
  providers: [ConnectorAdminService],
  exports: [ConnectorAdminService],
})
export class ConnectorAdminModule {}
