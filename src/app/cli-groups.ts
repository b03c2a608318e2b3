import type { DynamicModule, Provider, Type } from '@nestjs/common';

/** What one command group adds to the CLI's context: the feature modules its commands use, and the commands. */
export interface CliGroup {
  imports: Array<Type | DynamicModule>;
  providers: Provider[];
}

/**
 * The admin CLI's command groups, each loaded on demand: a command line names its group first,
 * so only that group's commands, their features and the libraries those use are loaded (each
 * import here is dynamic). Help never comes here: the build writes it from all groups at once.
 * A group lists subcommands that live with the features they drive, so groups that gather
 * several features (accounts, keys, db) are put together in cli-*-group.ts files, where the
 * features meet, and no feature folder has to import another to complete its group.
 */
export const CLI_GROUPS: Record<string, () => Promise<CliGroup>> = {
  db: async () => (await import('./cli-db-group.js')).DB_GROUP,
  accounts: async () => (await import('./cli-accounts-group.js')).ACCOUNTS_GROUP,
  keys: async () => (await import('./cli-keys-group.js')).KEYS_GROUP,
  logs: async () => {
    const [{ LOG_COMMANDS }, { RequestLogStoreModule }] = await Promise.all([
      import('../modules/request-logs/logs.command.js'),
      import('../modules/request-logs/request-log-store.module.js'),
    ]);
    return { imports: [RequestLogStoreModule], providers: LOG_COMMANDS };
  },
  numbers: async () => {
    const [{ NUMBER_COMMANDS }, { AccountsModule }, { InboundStoresModule }] = await Promise.all([
      import('../modules/inbound/numbers.command.js'),
      import('../modules/accounts/accounts.module.js'),
      import('../modules/inbound/inbound-stores.module.js'),
    ]);
    // The numbers need their store alone, not the receiving path (queues, callbacks) of InboundModule.
    return { imports: [AccountsModule, InboundStoresModule], providers: NUMBER_COMMANDS };
  },
  inbound: async () => {
    const [{ INBOUND_COMMANDS }, { InboundModule }] = await Promise.all([
      import('../modules/inbound/inbound.command.js'),
      import('../modules/inbound/inbound.module.js'),
    ]);
    return { imports: [InboundModule], providers: INBOUND_COMMANDS };
  },
  suppressions: async () => {
    const [{ SUPPRESSION_COMMANDS }, { AccountsModule }, { SuppressionsModule }] = await Promise.all([
      import('../modules/suppressions/suppressions.command.js'),
      import('../modules/accounts/accounts.module.js'),
      import('../modules/suppressions/suppressions.module.js'),
    ]);
    return { imports: [AccountsModule, SuppressionsModule], providers: SUPPRESSION_COMMANDS };
  },
  messages: async () => {
    const [{ MESSAGE_COMMANDS }, { AccountsModule }, { MessageSearchModule }] = await Promise.all([
      import('../modules/messages/search/messages.command.js'),
      import('../modules/accounts/accounts.module.js'),
      import('../modules/messages/search/message-search.module.js'),
    ]);
    return { imports: [AccountsModule, MessageSearchModule], providers: MESSAGE_COMMANDS };
  },
  smpp: async () => {
    const [{ SMPP_COMMANDS }, { SmppAdminModule }] = await Promise.all([
      import('../modules/smpp-server/smpp.command.js'),
      import('../modules/smpp-server/smpp-admin.module.js'),
    ]);
    // The binds live in Redis: this group alone connects to it.
    return { imports: [SmppAdminModule], providers: SMPP_COMMANDS };
  },
  connectors: async () =>
    connectorGroup((await import('../modules/delivery/smpp/connectors.command.js')).CONNECTOR_COMMANDS),
  routes: async () =>
    connectorGroup((await import('../modules/delivery/smpp/routes.command.js')).ROUTE_COMMANDS),
};
// The routes file holds the prices group too.
CLI_GROUPS.prices = CLI_GROUPS.routes;

async function connectorGroup(commands: Provider[]): Promise<CliGroup> {
  const { ConnectorAdminModule } = await import('../modules/delivery/smpp/connector-admin.module.js');
  return { imports: [ConnectorAdminModule], providers: commands };
}
