import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { printJson, printLine, printTable } from '../../platform/cli/output.js';
import { parseCostPerUnit, parsePositiveAmount } from '../../platform/cli/parsers.js';
import { money } from '../../platform/money/money.js';
import { accountView, type JsonOption } from '../accounts/accounts.command.js';
import { AccountsService } from '../accounts/accounts.service.js';
import type { Channel } from '../accounts/channel.js';
import { BalanceService } from './balance.service.js';
import { AccountChannelCommand } from '../accounts/account-channel.command.js';

/** The balance subcommands of the admin CLI's `accounts` command: show, credit, price. */

@SubCommand({
  name: 'show',
  arguments: '<username>',
  description: 'show an account with its balance and price per channel',
})
export class AccountsShowCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
  ) {
    super();
  }

  async run([username]: string[], o: JsonOption): Promise<void> {
    const a = await this.accounts.requireByUsername(username);
    const rows = await this.balances.channels(a.id);
    const channels: Partial<Record<Channel, { balance: string; cost_per_unit: string; price: string }>> = {};
    for (const c of rows)
      channels[c.channel] = {
        balance: money(c.balance),
        cost_per_unit: money(c.costPerUnit),
        price: c.priceInherited ? 'parent' : 'own',
      };
    const parent = a.parentId ? await this.accounts.findById(a.parentId) : null;
    const view = {
      ...accountView(a, parent?.username ?? null),
      send_window: a.sendWindow,
      time_zone: a.timeZone,
      channels,
    };
    if (o.json) return printJson(view);
    printLine(
      `${view.username}  ${view.status}  ${view.currency}  client_id ${view.client_id}  created ${view.created_at}${view.parent ? `  sub-account of ${view.parent}` : ''}`,
    );
    const w = view.send_window;
    if (w)
      printLine(
        `send window ${w.from}-${w.to} ${w.days ? w.days.join(',') : 'every day'}, time zone ${view.time_zone}`,
      );
    printTable(
      Object.entries(channels).map(([channel, c]) => ({ channel, ...c })),
      [
        ['channel', 'CHANNEL'],
        ['balance', 'BALANCE'],
        ['cost_per_unit', 'COST_PER_UNIT'],
        ['price', 'PRICE'],
      ],
    );
  }
}

@SubCommand({ name: 'credit', description: "top up a channel balance (a ledger 'topup' row)" })
export class AccountsCreditCommand extends AccountChannelCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
  ) {
    super();
  }

  async run(
    _: string[],
    o: JsonOption & { username: string; channel: Channel; amount: string },
  ): Promise<void> {
    const a = await this.accounts.requireByUsername(o.username);
    const row = await this.balances.topUp(a.id, o.channel, o.amount, 'admin cli');
    const view = { username: a.username, channel: o.channel, amount: o.amount, balance: money(row.balance) };
    if (o.json) return printJson(view);
    printLine(`Credited ${view.amount} to ${view.username} ${view.channel}; balance now ${view.balance}`);
  }

  @Option({
    flags: '--amount <amount>',
    description: 'positive, at most 6 decimal places, e.g. 100.00',
    required: true,
  })
  parseAmount(v: string): string {
    return parsePositiveAmount(v);
  }
}

@SubCommand({ name: 'price', description: 'set the cost per unit of a channel' })
export class AccountsPriceCommand extends AccountChannelCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly balances: BalanceService,
  ) {
    super();
  }

  async run(
    _: string[],
    o: JsonOption & { username: string; channel: Channel; costPerUnit: string },
  ): Promise<void> {
    const a = await this.accounts.requireByUsername(o.username);
    const row = await this.balances.setPrice(a.id, o.channel, o.costPerUnit);
    const view = { username: a.username, channel: o.channel, cost_per_unit: money(row.costPerUnit) };
    if (o.json) return printJson(view);
    printLine(`${view.username} ${view.channel} now costs ${view.cost_per_unit} per unit`);
  }

  @Option({
    flags: '--cost-per-unit <price>',
    description: 'zero or more, at most 6 decimal places, e.g. 0.25',
    required: true,
  })
  parseCostPerUnit(v: string): string {
    return parseCostPerUnit(v);
  }
}
