import { Inject } from '@nestjs/common';
import { Option, SubCommand } from 'nest-commander';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { checkCallbackUrl } from '../callbacks/callback-url.js';
import { InboundStore } from './inbound.store.js';

const MAX_REPLY = 1600;

function parseReply(v: string): string {
  if (v.length > MAX_REPLY) throw new UsageError(`Expected at most ${MAX_REPLY} characters.`);
  return v;
}

interface WebhookOptions {
  json?: boolean;
  username: string;
  statusUrl?: string;
  inboundUrl?: string;
  clearStatus?: boolean;
  clearInbound?: boolean;
  clear?: boolean;
}

@SubCommand({
  name: 'webhook',
  description:
    "where the account's events are POSTed, signed like delivery callbacks: --status-url for message state changes of every channel (unless a send names its own callback_url), --inbound-url for inbound messages; --clear-status, --clear-inbound or --clear stop them",
})
export class AccountsWebhookCommand extends CliCommand {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsService,
    private readonly store: InboundStore,
  ) {
    super();
  }

  async run(_: string[], o: WebhookOptions): Promise<void> {
    const status = this.change(o.statusUrl, o.clearStatus || o.clear);
    const inbound = this.change(o.inboundUrl, o.clearInbound || o.clear);
    if (status === undefined && inbound === undefined)
      throw new UsageError(
        'give --status-url URL and/or --inbound-url URL, or --clear-status, --clear-inbound, --clear',
      );
    const account = await this.accounts.requireByUsername(o.username);
    if (status !== undefined) await this.accounts.setStatusCallbackUrl(account.id, status);
    if (inbound !== undefined) await this.store.updateSettings(account.id, { inbound_url: inbound });
    const view = {
      username: account.username,
      status_url: status === undefined ? account.statusCallbackUrl : status,
      inbound_url:
        inbound === undefined
          ? ((await this.store.settings([account.id])).get(String(account.id))?.inbound_url ?? null)
          : inbound,
    };
    if (o.json) return printJson(view);
    printLine(`Webhooks of ${account.username}:`);
    printLine(`  status_url: ${view.status_url ?? '(none)'}`);
    printLine(`  inbound_url: ${view.inbound_url ?? '(none)'}`);
  }

  /** The new value (a checked URL, or null to clear), or undefined when this one is left alone. */
  private change(url: string | undefined, clear: boolean | undefined): string | null | undefined {
    if (url !== undefined && clear) throw new UsageError('a URL and its --clear option together');
    if (clear) return null;
    if (url === undefined) return undefined;
    try {
      return checkCallbackUrl(url, this.config.callbackAllowPrivateNetworks, this.config.callbackHttpsOnly);
    } catch (err) {
      if (err instanceof AppException) throw new UsageError(err.message.replace(/^callback_url/, 'the URL'));
      throw err;
    }
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--status-url <url>',
    description:
      'http(s) URL for the state changes of every message; private addresses refused as for callbacks',
  })
  parseStatusUrl(v: string): string {
    return v;
  }

  @Option({
    flags: '--inbound-url <url>',
    description: 'http(s) URL for inbound messages; private addresses refused as for callbacks',
  })
  parseInboundUrl(v: string): string {
    return v;
  }

  @Option({
    flags: '--clear-status',
    description: 'send state changes nowhere (a send may still name its own)',
  })
  parseClearStatus(): boolean {
    return true;
  }

  @Option({ flags: '--clear-inbound', description: 'send inbound messages nowhere' })
  parseClearInbound(): boolean {
    return true;
  }

  @Option({ flags: '--clear', description: 'both of the above' })
  parseClear(): boolean {
    return true;
  }
}

@SubCommand({
  name: 'auto-reply',
  description:
    'texts sent back (as ordinary, charged SMS) to STOP, START and HELP; an empty text turns one off',
})
export class AccountsAutoReplyCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly store: InboundStore,
  ) {
    super();
  }

  async run(
    _: string[],
    o: {
      json?: boolean;
      username: string;
      onStop?: string;
      onStart?: string;
      onHelp?: string;
      off?: boolean;
    },
  ): Promise<void> {
    const given = [o.onStop, o.onStart, o.onHelp].some((v) => v !== undefined);
    if (given === !!o.off) throw new UsageError('give --on-stop, --on-start and/or --on-help, or --off');
    const account = await this.accounts.requireByUsername(o.username);
    const value = (v: string | undefined) => (o.off ? null : v === undefined ? undefined : v.trim() || null);
    await this.store.updateSettings(account.id, {
      reply_on_stop: value(o.onStop),
      reply_on_start: value(o.onStart),
      reply_on_help: value(o.onHelp),
    });
    const s = (await this.store.settings([account.id])).get(String(account.id));
    const view = {
      username: account.username,
      on_stop: s?.reply_on_stop ?? null,
      on_start: s?.reply_on_start ?? null,
      on_help: s?.reply_on_help ?? null,
    };
    if (o.json) return printJson(view);
    printLine(`Auto-replies of ${account.username}:`);
    for (const k of ['on_stop', 'on_start', 'on_help'] as const) printLine(`  ${k}: ${view[k] ?? '(off)'}`);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--on-stop <text>', description: 'confirmation of an opt-out' })
  parseOnStop(v: string): string {
    return parseReply(v);
  }

  @Option({ flags: '--on-start <text>', description: 'confirmation of an opt-in' })
  parseOnStart(v: string): string {
    return parseReply(v);
  }

  @Option({ flags: '--on-help <text>', description: 'answer to HELP' })
  parseOnHelp(v: string): string {
    return parseReply(v);
  }

  @Option({ flags: '--off', description: 'turn every auto-reply off' })
  parseOff(): boolean {
    return true;
  }
}

export const ACCOUNT_INBOUND_COMMANDS = [AccountsWebhookCommand, AccountsAutoReplyCommand];
