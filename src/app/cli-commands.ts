import { Command } from 'nest-commander';
import { CommandGroup } from '../platform/cli/cli-command.js';
import {
  AccountsActivateCommand,
  AccountsCallbackSecretCommand,
  AccountsCreateCommand,
  AccountsListCommand,
  AccountsSuspendCommand,
} from '../modules/accounts/accounts.command.js';
import { AccountsPasswordCommand } from '../modules/accounts/password.command.js';
import { AccountsSetCommand } from '../modules/accounts/accounts-set.command.js';
import { KEY_SUBCOMMANDS } from '../modules/api-keys/keys.command.js';
import {
  AccountsCreditCommand,
  AccountsPriceCommand,
  AccountsShowCommand,
} from '../modules/balance/balance.command.js';
import { KeysLogsCommand } from '../modules/request-logs/key-logs.command.js';
import { ACCOUNT_INBOUND_COMMANDS } from '../modules/inbound/inbound-settings.command.js';
import { AccountsLimitCommand } from '../modules/balance/account-limit.command.js';
import { KeysLimitCommand } from '../modules/balance/key-limit.command.js';
import { DB_SUBCOMMANDS } from '../database/db.command.js';
import { RETENTION_SUBCOMMANDS } from '../modules/retention/retention.command.js';
import { AccountsEraseRecipientCommand } from '../modules/retention/erase-recipient.command.js';

/**
 * The admin CLI's command groups. A group lists subcommands that live with the features they
 * drive (accounts, balance, api-keys, request-logs, inbound), so the groups are put together here, where
 * the features meet, and no feature folder has to import another to complete its group.
 */
const ACCOUNTS = [
  AccountsCreateCommand,
  AccountsListCommand,
  AccountsShowCommand,
  AccountsSuspendCommand,
  AccountsActivateCommand,
  AccountsCreditCommand,
  AccountsPriceCommand,
  AccountsCallbackSecretCommand,
  AccountsPasswordCommand,
  AccountsSetCommand,
  AccountsLimitCommand,
  ...ACCOUNT_INBOUND_COMMANDS,
  AccountsEraseRecipientCommand,
];

@Command({ name: 'accounts', description: 'manage accounts, balances and prices', subCommands: ACCOUNTS })
export class AccountsCommand extends CommandGroup {}

const KEYS = [...KEY_SUBCOMMANDS, KeysLogsCommand, KeysLimitCommand];

@Command({ name: 'keys', description: 'manage API keys', subCommands: KEYS })
export class KeysCommand extends CommandGroup {}

const DB = [...DB_SUBCOMMANDS, ...RETENTION_SUBCOMMANDS];

@Command({
  name: 'db',
  description: 'create and migrate the databases, show their migrations, prune and archive old messages',
  subCommands: DB,
})
export class DbCommand extends CommandGroup {}

/** Every provider the db commands need registered. */
export const DB_COMMANDS = [DbCommand, ...DB];

/** Every provider the accounts and keys commands need registered (nest-commander discovers subcommands as providers). */
export const ACCOUNT_AND_KEY_COMMANDS = [AccountsCommand, ...ACCOUNTS, KeysCommand, ...KEYS];
