import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../../platform/cli/cli-command.js';
import { printJson, printLine, printTable } from '../../../platform/cli/output.js';
import { ConnectorAdminService, type ConnectorView } from './connector-admin.service.js';
import type { ConnectorFields } from './connector.store.js';
import {
  parseBindMode,
  parseConnectorName,
  parseConnectorUrl,
  parseSystemType,
  parseTps,
  parseWindow,
} from './connector-parsers.js';

interface ConnectorOptions {
  json?: boolean;
  url?: string;
  tps?: number;
  window?: number;
  bind?: 'transceiver' | 'transmitter';
  systemType?: string;
}

function fields(o: ConnectorOptions): Partial<ConnectorFields> {
  return {
    url: o.url,
    tps: o.tps,
    window_size: o.window,
    bind_mode: o.bind,
    system_type: o.systemType === undefined ? undefined : o.systemType || null,
  };
}

function show(c: ConnectorView, verb: string, o: { json?: boolean }): void {
  if (o.json) return printJson(c);
  printLine(
    `${verb} connector ${c.name}: ${c.url}, ${c.tps || 'unlimited'} TPS, window ${c.window}, ${c.bind}${c.enabled ? '' : ', disabled'}`,
  );
}

/** The flags add and update share. */
abstract class ConnectorFlags extends CliCommand {
  @Option({ flags: '--url <url>', description: 'smpp://system_id:password@host:port' })
  parseUrl(v: string): string {
    return parseConnectorUrl(v);
  }

  @Option({
    flags: '--tps <n>',
    description: 'most submit_sm per second over all workers together (0 = no cap; default 0)',
  })
  parseTps(v: string): number {
    return parseTps(v);
  }

  @Option({
    flags: '--window <n>',
    description: 'most submit_sm awaiting a response, per bind (default 100)',
  })
  parseWindow(v: string): number {
    return parseWindow(v);
  }

  @Option({
    flags: '--bind <mode>',
    description: 'transceiver (default: sends and takes receipts) or transmitter (no receipts)',
  })
  parseBind(v: string): 'transceiver' | 'transmitter' {
    return parseBindMode(v);
  }

  @Option({ flags: '--system-type <s>', description: 'system_type of the bind (default empty)' })
  parseSystemType(v: string): string {
    return parseSystemType(v);
  }
}

@SubCommand({ name: 'add', description: 'add an SMSC link; every worker binds to it within a few seconds' })
export class ConnectorsAddCommand extends ConnectorFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: ConnectorOptions & { name: string }): Promise<void> {
    const c = await this.admin.add(o.name, {
      url: o.url!,
      tps: o.tps ?? 0,
      window_size: o.window ?? 100,
      bind_mode: o.bind ?? 'transceiver',
      system_type: o.systemType || null,
    });
    show(c, 'Added', o);
  }

  @Option({ flags: '--name <name>', description: 'what routes call it', required: true })
  parseName(v: string): string {
    return parseConnectorName(v);
  }

  @Option({ flags: '--url <url>', description: 'smpp://system_id:password@host:port', required: true })
  override parseUrl(v: string): string {
    return parseConnectorUrl(v);
  }
}

@SubCommand({
  name: 'update',
  arguments: '<name>',
  description: 'change a connector (the add flags); workers apply it within a few seconds',
})
export class ConnectorsUpdateCommand extends ConnectorFlags {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run([name]: string[], o: ConnectorOptions): Promise<void> {
    show(await this.admin.update(name, fields(o)), 'Updated', o);
  }
}

@SubCommand({
  name: 'list',
  description: 'list connectors with their live state: binds, in flight, queued, sent per second',
})
export class ConnectorsListCommand extends CliCommand {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run(_: string[], o: { json?: boolean }): Promise<void> {
    const connectors = await this.admin.list();
    if (o.json) return printJson({ connectors });
    printTable(
      connectors.map((c) => ({
        ...c,
        enabled: c.enabled ? 'yes' : 'no',
        bound: `${c.bound}/${c.workers}`,
        tps: c.tps || 'unlimited',
      })),
      [
        ['name', 'NAME'],
        ['enabled', 'ENABLED'],
        ['bound', 'BOUND'],
        ['in_flight', 'IN_FLIGHT'],
        ['queued', 'QUEUED'],
        ['sent_per_second', 'SENT/S'],
        ['tps', 'TPS'],
        ['window', 'WINDOW'],
        ['bind', 'BIND'],
        ['url', 'URL'],
      ],
    );
  }
}

function toggle(enabled: boolean) {
  @SubCommand({
    name: enabled ? 'enable' : 'disable',
    arguments: '<name>',
    description: enabled
      ? 'put a connector back in use'
      : 'stop using a connector (its routes fail over to the others)',
  })
  class ToggleCommand extends CliCommand {
    constructor(readonly admin: ConnectorAdminService) {
      super();
    }

    async run([name]: string[], o: { json?: boolean }): Promise<void> {
      show(await this.admin.update(name, { enabled }), enabled ? 'Enabled' : 'Disabled', o);
    }
  }
  return ToggleCommand;
}

export const ConnectorsEnableCommand = toggle(true);
export const ConnectorsDisableCommand = toggle(false);

@SubCommand({ name: 'remove', arguments: '<name>', description: 'remove a connector that no route names' })
export class ConnectorsRemoveCommand extends CliCommand {
  constructor(private readonly admin: ConnectorAdminService) {
    super();
  }

  async run([name]: string[], o: { json?: boolean }): Promise<void> {
    await this.admin.remove(name);
    if (o.json) return printJson({ name, removed: true });
    printLine(`Removed connector ${name}`);
  }
}

const SUBCOMMANDS = [
  ConnectorsAddCommand,
  ConnectorsListCommand,
  ConnectorsUpdateCommand,
  ConnectorsDisableCommand,
  ConnectorsEnableCommand,
  ConnectorsRemoveCommand,
];

@Command({ name: 'connectors', description: 'manage SMSC links (SMPP connectors)', subCommands: SUBCOMMANDS })
export class ConnectorsCommand extends CommandGroup {}

export const CONNECTOR_COMMANDS = [ConnectorsCommand, ...SUBCOMMANDS];
