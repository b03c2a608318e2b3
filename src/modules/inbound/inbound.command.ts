import { Inject } from '@nestjs/common';
import { Command, Option, SubCommand } from 'nest-commander';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { UNQUEUED_GRACE_MS } from '../callbacks/callback.outbox.js';
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
    'receive an SMS as if an SMSC had delivered it: stored, STOP/START applied; webhooks and auto-replies go out from the workers (the output says within how long)',
})
export class InboundSimulateCommand extends CliCommand {
  constructor(
    private readonly receiver: InboundReceiver,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; from: string; to: string; text: string }): Promise<void> {
    const received = await this.receiver.receive({ from: o.from, to: o.to, text: o.text }, 'simulate');
    if (received.unrouted)
      throw new AccountError(`no account has ${o.to} or the keyword the text starts with: not stored`);
    const inbound = received.rows.map(inboundView);
    const pending = this.pending(received.webhooks.length, received.rows.filter((r) => r.reply_text).length);
    if (o.json) return printJson({ inbound, pending });
    for (const m of inbound)
      printLine(
        `Stored ${m.inbound_id} from ${m.from} to ${m.to}${m.keyword ? ` keyword ${m.keyword}` : ''}`,
      );
    if (pending.webhooks)
      printLine(
        `Webhook: sent by a running worker within ${pending.webhooks_within_seconds} s (its next recovery sweep).`,
      );
    if (pending.auto_replies)
      printLine(
        `Auto-reply: sent by a running worker within ${pending.auto_replies_within_seconds} s (its next inbound sweep).`,
      );
  }

  /**
   * The CLI reaches MySQL only: what the message sets off (its webhook event, kept in the outbox,
   * and its auto-reply, stored pending) is taken by a running worker's sweeps. Their latest
   * start, from the settings this process read (the same as the service's): a kept event is
   * queued by the first sweep after UNQUEUED_GRACE_MS, a pending reply by the first inbound
   * round after SWEEP_MIN_AGE_MS.
   */
  private pending(webhooks: number, autoReplies: number) {
    const seconds = (ms: number) => Math.ceil(ms / 1000);
    return {
      webhooks,
      webhooks_within_seconds: webhooks ? seconds(UNQUEUED_GRACE_MS + this.config.sweepIntervalMs) : null,
      auto_replies: autoReplies,
      auto_replies_within_seconds: autoReplies
        ? seconds(this.config.sweepMinAgeMs + this.config.sweepIntervalMs)
        : null,
    };
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
