import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine, printTable } from '../../platform/cli/output.js';
import { collect } from '../../platform/cli/parsers.js';
import { parseChannel } from '../accounts/channel.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { Channel } from '../messages/channel.js';
import type { ListOwner } from './suppression.store.js';
import { normaliseRecipientFor, SuppressionsService } from './suppressions.service.js';
import { AccountChannelCommand } from '../accounts/account-channel.command.js';

/** The CLI keeps an account's live list; its test list is its test keys' (the API). */
const live = (accountId: string): ListOwner => ({ accountId, testMode: false });

interface ChangeOptions {
  json?: boolean;
  username: string;
  channel: Channel;
  recipient: string[];
}

/** Checked once the channel is known: sms and chat take numbers, email addresses. */
function checkRecipients(o: ChangeOptions): string[] {
  return o.recipient.map((r) => {
    const check = normaliseRecipientFor(o.channel, r);
    if (!check.ok) throw new UsageError(`--recipient ${r}: ${check.reason}`);
    return check.value;
  });
}

abstract class ChangeCommand extends AccountChannelCommand {
  @Option({
    flags: '--recipient <recipient>',
    description: 'a number or address; repeat for several',
    required: true,
  })
  parseRecipient(v: string, previous?: string[]): string[] {
    return collect(v, previous);
  }
}

@SubCommand({
  name: 'add',
  description: 'suppress recipients (reason MANUAL): sends to them are REJECTED, SUPPRESSED',
})
export class SuppressionsAddCommand extends ChangeCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly suppressions: SuppressionsService,
  ) {
    super();
  }

  async run(_: string[], o: ChangeOptions): Promise<void> {
    const recipients = checkRecipients(o);
    const account = await this.accounts.requireByUsername(o.username);
    const { added } = await this.suppressions.add(live(account.id), o.channel, recipients, 'MANUAL');
    if (o.json) return printJson({ username: account.username, channel: o.channel, recipients, added });
    printLine(`Suppressed ${added} new ${o.channel} recipient(s) for ${account.username}`);
  }
}

@SubCommand({ name: 'remove', description: 'take recipients off the suppression list' })
export class SuppressionsRemoveCommand extends ChangeCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly suppressions: SuppressionsService,
  ) {
    super();
  }

  async run(_: string[], o: ChangeOptions): Promise<void> {
    const recipients = checkRecipients(o);
    const account = await this.accounts.requireByUsername(o.username);
    const { removed } = await this.suppressions.remove(live(account.id), o.channel, recipients);
    if (o.json) return printJson({ username: account.username, channel: o.channel, recipients, removed });
    printLine(`Removed ${removed} ${o.channel} recipient(s) from ${account.username}'s suppression list`);
  }
}

@SubCommand({ name: 'list', description: "an account's suppression list" })
export class SuppressionsListCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly suppressions: SuppressionsService,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; username: string; channel?: Channel }): Promise<void> {
    const account = await this.accounts.requireByUsername(o.username);
    const all: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const page = await this.suppressions.list(live(account.id), o.channel ?? null, cursor, 1000);
      all.push(...page.data.map((d) => ({ ...d })));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    if (o.json) return printJson({ username: account.username, suppressions: all });
    printTable(all, [
      ['channel', 'CHANNEL'],
      ['recipient', 'RECIPIENT'],
      ['reason', 'REASON'],
      ['created_at', 'SINCE'],
    ]);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--channel <channel>', description: 'only sms, email or chat' })
  parseChannel(v: string): Channel {
    return parseChannel(v);
  }
}

const SUBCOMMANDS = [SuppressionsAddCommand, SuppressionsRemoveCommand, SuppressionsListCommand];

@Command({ name: 'suppressions', description: 'suppression lists (opt-outs)', subCommands: SUBCOMMANDS })
export class SuppressionsCommand extends CommandGroup {}

export const SUPPRESSION_COMMANDS = [SuppressionsCommand, ...SUBCOMMANDS];
