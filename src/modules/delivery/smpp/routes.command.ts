import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../../platform/cli/cli-command.js';
import { printJson, printLine, printTable } from '../../../platform/cli/output.js';
import { parseCostPerUnit } from '../../../platform/cli/parsers.js';
import type { Channel } from '../../accounts/channel.js';
import { ConnectorAdminService } from './connector-admin.service.js';
import { parseConnectorName, parsePrefix, parseRoutePriority } from './connector-parsers.js';
import { AccountChannelCommand } from '../../accounts/account-channel.command.js';

interface RouteOptions {
  json?: boolean;
  prefix: string;
  connector: string;
  priority?: number;
  username?: string;
}

/** The flags that name a route. */
abstract class RouteFlags extends CliCommand {
  @Option({
    flags: '--prefix <digits>',
    description: 'leading digits of the destination, e.g. 26097',
    required: true,
  })
  parsePrefix(v: string): string {
    return parsePrefix(v);
  }

  @Option({
    flags: '--username <username>',
    description: "an account's own route (default: a route for everyone)",
  })
  parseUsername(v: string): string {
    return v;
  }
}

@SubCommand({
  name: 'add',
  description: 'route destinations starting with a prefix to a connector (again: set its priority)',
})
export class RoutesAddCommand extends RouteFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: RouteOptions): Promise<void> {
    const r = await this.admin.addRoute(o.prefix, o.connector, o.priority ?? 1, o.username);
    if (o.json) return printJson(r);
    printLine(
      `Route ${r.prefix} → ${r.connector} (priority ${r.priority}${r.username ? `, for ${r.username}` : ''})`,
    );
  }

  @Option({ flags: '--connector <name>', required: true })
  parseConnector(v: string): string {
    return parseConnectorName(v);
  }

  @Option({
    flags: '--priority <n>',
    description: 'among connectors on the same prefix, 1 is tried first (default 1)',
  })
  parsePriority(v: string): number {
    return parseRoutePriority(v);
  }
}

@SubCommand({ name: 'remove', description: 'remove the routes of a prefix (or only the one to --connector)' })
export class RoutesRemoveCommand extends RouteFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: Omit<RouteOptions, 'connector'> & { connector?: string }): Promise<void> {
    const removed = await this.admin.removeRoute(o.prefix, o.connector, o.username);
    if (o.json) return printJson({ prefix: o.prefix, removed });
    printLine(`Removed ${removed} route(s) for ${o.prefix}`);
  }

  @Option({ flags: '--connector <name>' })
  parseConnector(v: string): string {
    return parseConnectorName(v);
  }
}

@SubCommand({ name: 'list', description: 'list routes: global ones and each account’s own' })
export class RoutesListCommand extends CliCommand {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: { json?: boolean }): Promise<void> {
    const routes = await this.admin.routes();
    if (o.json) return printJson({ routes });
    printTable(
      routes.map((r) => ({ ...r, username: r.username ?? '(everyone)' })),
      [
        ['prefix', 'PREFIX'],
        ['connector', 'CONNECTOR'],
        ['priority', 'PRIORITY'],
        ['username', 'ACCOUNT'],
      ],
    );
  }
}

const ROUTE_SUBCOMMANDS = [RoutesAddCommand, RoutesListCommand, RoutesRemoveCommand];

@Command({
  name: 'routes',
  description: 'route destinations to connectors by prefix',
  subCommands: ROUTE_SUBCOMMANDS,
})
export class RoutesCommand extends CommandGroup {}

interface PriceOptions {
  json?: boolean;
  username: string;
  channel: Channel;
  prefix: string;
  costPerUnit?: string;
}

/** The flags that name a destination price. */
abstract class PriceFlags extends AccountChannelCommand {
  @Option({
    flags: '--prefix <digits>',
    description: 'leading digits of the destination, e.g. 26097',
    required: true,
  })
  parsePrefix(v: string): string {
    return parsePrefix(v);
  }
}

@SubCommand({
  name: 'set',
  description:
    "an account's price per unit for destinations starting with a prefix (the longest prefix wins)",
})
export class PricesSetCommand extends PriceFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: PriceOptions): Promise<void> {
    const p = await this.admin.setPrice(o.username, o.channel, o.prefix, o.costPerUnit!);
    if (o.json) return printJson(p);
    printLine(`${p.username} pays ${p.cost_per_unit} per ${p.channel} unit to ${p.prefix}…`);
  }

  @Option({
    flags: '--cost-per-unit <amount>',
    description: 'zero or more, up to 6 decimals',
    required: true,
  })
  parseCostPerUnit(v: string): string {
    return parseCostPerUnit(v);
  }
}

@SubCommand({ name: 'remove', description: 'remove a destination price (the channel price applies again)' })
export class PricesRemoveCommand extends PriceFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: PriceOptions): Promise<void> {
    await this.admin.removePrice(o.username, o.channel, o.prefix);
    if (o.json)
      return printJson({ username: o.username, channel: o.channel, prefix: o.prefix, removed: true });
    printLine(`Removed ${o.username}'s ${o.channel} price for ${o.prefix}`);
  }
}

@SubCommand({ name: 'list', description: "an account's destination prices" })
export class PricesListCommand extends CliCommand {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: { json?: boolean; username: string }): Promise<void> {
    const prices = await this.admin.prices(o.username);
    if (o.json) return printJson({ username: o.username, prices });
    printTable(prices, [
      ['channel', 'CHANNEL'],
      ['prefix', 'PREFIX'],
      ['cost_per_unit', 'COST_PER_UNIT'],
    ]);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }
}

const PRICE_SUBCOMMANDS = [PricesSetCommand, PricesListCommand, PricesRemoveCommand];

@Command({
  name: 'prices',
  description: 'per-destination prices of an account (else the channel price)',
  subCommands: PRICE_SUBCOMMANDS,
})
export class PricesCommand extends CommandGroup {}

export const ROUTE_COMMANDS = [RoutesCommand, ...ROUTE_SUBCOMMANDS, PricesCommand, ...PRICE_SUBCOMMANDS];
