import { Command } from 'nest-commander';
import { CommandGroup } from '../platform/cli/cli-command.js';
import {
  AccountsActivateCommand,
  AccountsCallbackSecretCommand,
  AccountsCreateCommand,
  AccountsListCommand,
  AccountsSuspendCommand,
} from '../modules/accounts/accounts.command.js';
import { AccountsModule } from '../modules/accounts/accounts.module.js';
import { AccountsPasswordCommand } from '../modules/accounts/password.command.js';
import { AccountsSetCommand } from '../modules/accounts/accounts-set.command.js';
import {
  AccountsCreditCommand,
  AccountsPriceCommand,
  AccountsShowCommand,
} from '../modules/balance/balance.command.js';
import { BalanceModule } from '../modules/balance/balance.module.js';
import { AccountsLimitCommand } from '../modules/balance/account-limit.command.js';
import { ACCOUNT_INBOUND_COMMANDS } from '../modules/inbound/inbound-settings.command.js';
import { InboundStoresModule } from '../modules/inbound/inbound-stores.module.js';
import { AccountsSendWindowCommand } from '../modules/sending/windows/send-window.command.js';
import { AccountsTransferCommand } from '../modules/subaccounts/transfer.command.js';
import { AccountsEraseRecipientCommand } from '../modules/retention/erase-recipient.command.js';
import { RetentionModule } from '../modules/retention/retention.module.js';
import { AccountsCountriesCommand } from '../modules/fraud/countries/countries.command.js';
import { CountriesModule } from '../modules/fraud/countries/countries.module.js';
import { AccountsFraudCommand } from '../modules/fraud/pumping/pumping.command.js';
import { PumpingModule } from '../modules/fraud/pumping/pumping.module.js';
import type { CliGroup } from './cli-groups.js';

const ACCOUNTS = [
  AccountsCreateCommand,
  AccountsListCommand,
  AccountsShowCommand,
  AccountsSuspendCommand,
  AccountsActivateCommand,
  AccountsCreditCommand,
  AccountsTransferCommand,
  AccountsPriceCommand,
  AccountsCallbackSecretCommand,
  AccountsPasswordCommand,
  AccountsSetCommand,
  AccountsSendWindowCommand,
  AccountsLimitCommand,
  AccountsCountriesCommand,
  ...ACCOUNT_INBOUND_COMMANDS,
  AccountsEraseRecipientCommand,
  AccountsFraudCommand,
];

@Command({ name: 'accounts', description: 'manage accounts, balances and prices', subCommands: ACCOUNTS })
export class AccountsCommand extends CommandGroup {}

/** The accounts group: account, balance, inbound-settings and erasure commands (nest-commander discovers subcommands as providers). */
export const ACCOUNTS_GROUP: CliGroup = {
  // The inbound settings need the store alone, not the receiving path (queues, callbacks) of InboundModule.
  imports: [
    AccountsModule,
    BalanceModule,
    RetentionModule,
    InboundStoresModule,
    CountriesModule,
    PumpingModule,
  ],
  providers: [AccountsCommand, ...ACCOUNTS],
};
