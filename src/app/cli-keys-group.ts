import { Command } from 'nest-commander';
import { CommandGroup } from '../platform/cli/cli-command.js';
import { KEY_SUBCOMMANDS } from '../modules/api-keys/keys.command.js';
import { ApiKeysModule } from '../modules/api-keys/api-keys.module.js';
import { AccountsModule } from '../modules/accounts/accounts.module.js';
import { KeysLimitCommand } from '../modules/balance/key-limit.command.js';
import { BalanceModule } from '../modules/balance/balance.module.js';
import { KeysLogsCommand } from '../modules/request-logs/key-logs.command.js';
import { RequestLogStoreModule } from '../modules/request-logs/request-log-store.module.js';
import type { CliGroup } from './cli-groups.js';

const KEYS = [...KEY_SUBCOMMANDS, KeysLogsCommand, KeysLimitCommand];

@Command({ name: 'keys', description: 'manage API keys', subCommands: KEYS })
export class KeysCommand extends CommandGroup {}

/** The keys group: key commands, a key's request logs and its spend limit. */
export const KEYS_GROUP: CliGroup = {
  imports: [AccountsModule, ApiKeysModule, BalanceModule, RequestLogStoreModule],
  providers: [KeysCommand, ...KEYS],
};
