import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { AccountError } from '../accounts/accounts.service.js';
import { inboundView } from './inbound.controller.js';
import { InboundReceiver } from './inbound.receiver.js';
import { parseInboundNumber } from './numbers.command.js';

@SubCommand({
  name: 'simulate',
  description:
    'receive an SMS as if an SMSC had delivered it: stored, STOP/START applied; webhooks and auto-replies go out from the workers',
})
export class InboundSimulateCommand extends CliCommand {
  constructor(private readonly receiver: InboundReceiver) {
    super();
  }

  async run(_: string[], o: { json?: boolean; from: string; to: string; text: string }): Promise<void> {
    const received = await this.receiver.receive({ from: o.from, to: o.to, text: o.text }, 'simulate');
    if (received.unrouted)
      throw new AccountError(`no account has ${o.to} or the keyword the text starts with: not stored`);
    const inbound = received.rows.map(inboundView);
    if (o.json) return printJson({ inbound });
    for (const m of inbound)
      printLine(
        `Stored ${m.inbound_id} from ${m.from} to ${m.to}${m.keyword ? ` keyword ${m.keyword}` : ''}`,
      );
  }

  @Option({ flags: '--from <number>', description: 'the handset', required: true })
  parseFrom(v: string): string {
    return parseInboundNumber(v);
  }

  @Option({ flags: '--to <number>', description: 'the inbound number or short code', required: true })
  parseTo(v: string): string {
    return parseInboundNumber(v);
  }

  @Option({ flags: '--text <text>', required: true })
  parseText(v: string): string {
    if (v.length > 1600) throw new UsageError('Expected at most 1600 characters.');
    return v;
  }
}

const SUBCOMMANDS = [InboundSimulateCommand];

@Command({ name: 'inbound', description: 'inbound messages', subCommands: SUBCOMMANDS })
export class InboundCommand extends CommandGroup {}

export const INBOUND_COMMANDS = [InboundCommand, ...SUBCOMMANDS];
