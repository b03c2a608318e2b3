import { Command } from 'nest-commander';
import { CommandGroup } from '../platform/cli/cli-command.js';
import { DB_SUBCOMMANDS } from '../database/db.command.js';
import { RETENTION_SUBCOMMANDS } from '../modules/retention/retention.command.js';
import { CallbackStoreModule } from '../modules/callbacks/callback-store.module.js';
import { WebhookStoreModule } from '../modules/callbacks/webhooks/webhook-store.module.js';
import { RetentionModule } from '../modules/retention/retention.module.js';
import type { CliGroup } from './cli-groups.js';

const DB = [...DB_SUBCOMMANDS, ...RETENTION_SUBCOMMANDS];

@Command({
  name: 'db',
  description:
    'create and migrate the databases, show their migrations, prune and archive old messages, index the callback outbox and the webhook delivery log',
  subCommands: DB,
})
export class DbCommand extends CommandGroup {}

/** The db group: status and migrate, and the retention commands (prune, archive, hash-outbox). */
export const DB_GROUP: CliGroup = {
  imports: [RetentionModule, CallbackStoreModule, WebhookStoreModule],
  providers: [DbCommand, ...DB],
};
