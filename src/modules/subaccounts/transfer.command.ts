import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { parsePositiveAmount } from '../../platform/cli/parsers.js';
import { money } from '../../platform/money/money.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { parseChannel, type Channel } from '../accounts/channel.js';
import { TransferNotCovered, TransferStore } from '../balance/transfer.store.js';

@SubCommand({
  name: 'transfer',
  description:
    'move credit between a parent account and one of its sub-accounts, either way (atomic: two ledger rows)',
})
export class AccountsTransferCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly transfers: TransferStore,
  ) {
    super();
  }

  async run(
    _: string[],
    o: { from: string; to: string; channel: Channel; amount: string; json?: boolean },
  ): Promise<void> {
    const from = await this.accounts.requireByUsername(o.from);
    const to = await this.accounts.requireByUsername(o.to);
    const down = String(to.parentId) === String(from.id);
    if (!down && String(from.parentId) !== String(to.id))
      throw new CommandError(
        `credit moves only between a parent and its sub-accounts: ${from.username} and ${to.username} are not`,
      );
    const [parent, child] = down ? [from, to] : [to, from];
    let done;
    try {
      done = await this.transfers.transfer(parent.id, child.id, o.channel, down ? o.amount : `-${o.amount}`);
    } catch (err) {
      if (!(err instanceof TransferNotCovered)) throw err;
      throw new CommandError(
        `insufficient balance: ${from.username}'s ${o.channel} balance is ${err.available} ${from.currency}, the transfer needs ${err.needed}`,
      );
    }
    const balances = {
      [parent.username]: money(done.parentBalance),
      [child.username]: money(done.subaccountBalance),
    };
    const view = {
      transfer_id: done.transferId,
      from: from.username,
      to: to.username,
      channel: o.channel,
      amount: money(o.amount),
      from_balance: balances[from.username],
      to_balance: balances[to.username],
      currency: parent.currency,
    };
    if (o.json) return printJson(view);
    printLine(
      `Transferred ${view.amount} ${view.currency} of ${view.channel} credit from ${view.from} (now ${view.from_balance}) to ${view.to} (now ${view.to_balance}); transfer ${view.transfer_id}`,
    );
  }

  @Option({ flags: '--from <username>', description: 'the account that pays', required: true })
  parseFrom(v: string): string {
    return v;
  }

  @Option({ flags: '--to <username>', description: 'the account credited', required: true })
  parseTo(v: string): string {
    return v;
  }

  @Option({ flags: '--channel <channel>', description: 'sms, email or chat', required: true })
  parseChannel(v: string): Channel {
    return parseChannel(v);
  }

  @Option({ flags: '--amount <amount>', description: 'positive, at most 6 decimal places', required: true })
  parseAmount(v: string): string {
    return parsePositiveAmount(v);
  }
}
