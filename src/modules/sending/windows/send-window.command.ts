import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../../platform/cli/cli-command.js';
import { UsageError } from '../../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../../platform/cli/output.js';
import type { ErrorDetail } from '../../../platform/errors/error-codes.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { isTimeZone, parseSendWindow } from '../../messages/windows/send-window.js';

interface SendWindowOptions {
  username: string;
  from?: string;
  to?: string;
  days?: string;
  tz?: string;
  off?: boolean;
  json?: boolean;
}

/** The account's send window: when its messages may go out, in each recipient's local time. */
@SubCommand({
  name: 'send-window',
  description:
    "set (--from --to [--days] [--tz]) or remove (--off) an account's send window (API processes see the change within the key cache's TTL)",
})
export class AccountsSendWindowCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(_: string[], o: SendWindowOptions): Promise<void> {
    if (o.tz !== undefined && !isTimeZone(o.tz))
      throw new UsageError(
        `--tz: ${JSON.stringify(o.tz)} is not an IANA time zone (e.g. Africa/Lusaka, UTC)`,
      );
    let window = null;
    if (o.off) {
      if (o.from !== undefined || o.to !== undefined || o.days !== undefined)
        throw new UsageError('--off removes the window: give it without --from, --to or --days.');
    } else {
      if (o.from === undefined || o.to === undefined) {
        if (o.tz === undefined)
          throw new UsageError('Give --from HH:MM and --to HH:MM, --tz ZONE, or --off.');
      } else {
        const problems: ErrorDetail[] = [];
        const days = o.days?.split(',').map((d) => d.trim());
        window = parseSendWindow({ from: o.from, to: o.to, ...(days ? { days } : {}) }, 'window', problems);
        if (!window) throw new UsageError(problems.map((p) => `${p.field}: ${p.message}`).join('; '));
      }
    }
    const onlyZone = !o.off && window === null;
    const before = onlyZone ? await this.accounts.requireByUsername(o.username) : null;
    const a = await this.accounts.setSendWindow(o.username, before ? before.sendWindow : window, o.tz);
    const view = { username: a.username, send_window: a.sendWindow, time_zone: a.timeZone };
    if (o.json) return printJson(view);
    const w = a.sendWindow;
    printLine(
      `Account ${a.username}: ${
        w
          ? `send window ${w.from}-${w.to}${w.days ? ` on ${w.days.join(',')}` : ' every day'}`
          : 'no send window'
      }, time zone ${a.timeZone}`,
    );
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--from <HH:MM>', description: 'local time the window opens' })
  parseFrom(v: string): string {
    return v;
  }

  @Option({
    flags: '--to <HH:MM>',
    description: 'local time it closes (earlier than --from: across midnight)',
  })
  parseTo(v: string): string {
    return v;
  }

  @Option({ flags: '--days <mon,tue,...>', description: 'days it opens on (default: every day)' })
  parseDays(v: string): string {
    return v;
  }

  @Option({ flags: '--tz <zone>', description: "IANA zone of the account's e-mail recipients (default UTC)" })
  parseTz(v: string): string {
    return v;
  }

  @Option({ flags: '--off', description: 'remove the window' })
  parseOff(): boolean {
    return true;
  }
}
