import { Module, type DynamicModule } from '@nestjs/common';
import { RequestLogReader } from '../modules/request-logs/request-log-reader.js';
import type { AppConfig } from '../config/config.js';
import { ConfigModule } from '../config/config.module.js';
import { ExistingDatabaseModule } from '../database/existing-database.module.js';
import { AccountsModule } from '../modules/accounts/accounts.module.js';
import { ApiKeysModule } from '../modules/api-keys/api-keys.module.js';
import { BalanceModule } from '../modules/balance/balance.module.js';
import { LOG_COMMANDS } from '../modules/request-logs/logs.command.js';
import { INBOUND_COMMANDS } from '../modules/inbound/inbound.command.js';
import { InboundModule } from '../modules/inbound/inbound.module.js';
import { NUMBER_COMMANDS } from '../modules/inbound/numbers.command.js';
import { SUPPRESSION_COMMANDS } from '../modules/suppressions/suppressions.command.js';
import { SuppressionsModule } from '../modules/suppressions/suppressions.module.js';
import { MESSAGE_COMMANDS } from '../modules/messages/search/messages.command.js';
import { MessageSearchModule } from '../modules/messages/search/message-search.module.js';
import { CONNECTOR_COMMANDS } from '../modules/delivery/connectors/connectors.command.js';
import { ConnectorAdminService } from '../modules/delivery/connectors/connector-admin.service.js';
import { ROUTE_COMMANDS } from '../modules/delivery/connectors/routes.command.js';
import { RoutingModule } from '../modules/delivery/connectors/routing.module.js';
import { ACCOUNT_AND_KEY_COMMANDS, DB_COMMANDS } from './cli-commands.js';
import { RetentionModule } from '../modules/retention/retention.module.js';
import { MAIN_ENTITIES } from './entities.js';

/**
 * The admin CLI: thin commands over the account, key and balance services.
 * Databases only: no Redis, no queues, no HTTP, so it runs where only MySQL is reachable. It
 * never creates or migrates a database except through `db migrate`.
 */
@Module({})
export class CliModule {
  static forRoot(config: AppConfig): DynamicModule {
    return {
      module: CliModule,
      imports: [
        ConfigModule.forRoot(config),
        ExistingDatabaseModule.forRoot(MAIN_ENTITIES),
        AccountsModule,
        ApiKeysModule,
        BalanceModule,
        InboundModule,
        SuppressionsModule,
        MessageSearchModule,
        RoutingModule,
        RetentionModule,
      ],
      providers: [
        ...DB_COMMANDS,
        ...ACCOUNT_AND_KEY_COMMANDS,
        ...LOG_COMMANDS,
        ...NUMBER_COMMANDS,
        ...INBOUND_COMMANDS,
        ...SUPPRESSION_COMMANDS,
        ...MESSAGE_COMMANDS,
        ...CONNECTOR_COMMANDS,
        ...ROUTE_COMMANDS,
        RequestLogReader,
        ConnectorAdminService,
      ],
    };
  }
}
