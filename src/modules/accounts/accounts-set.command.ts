import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { AccountsService } from './accounts.service.js';

export function parseOnOff(value: string): boolean {
  const v = value.trim().toLowerCase();
  if (v === 'on' || v === 'true') return true;
  if (v === 'off' || v === 'false') return false;
  throw new UsageError('Expected on or off.');
}

interface SetOptions {
  username: string;
  smartEncoding?: boolean;
  json?: boolean;
}

/** Account settings that sends fall back on when a request does not say. */
@SubCommand({
  name: 'set',
  description: "change an account's defaults (API processes see the change within the key cache's TTL)",
})
export class AccountsSetCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(_: string[], o: SetOptions): Promise<void> {
    if (o.smartEncoding === undefined) throw new UsageError('Nothing to set: give --smart-encoding on|off.');
    const a = await this.accounts.setSmartEncoding(o.username, o.smartEncoding);
    const view = { username: a.username, smart_encoding: a.smartEncoding };
    if (o.json) return printJson(view);
    printLine(`Account ${view.username}: smart encoding ${view.smart_encoding ? 'on' : 'off'}`);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--smart-encoding <on|off>',
    description: 'SMS sends that do not give smart_encoding replace GSM-7 look-alikes (on) or not (off)',
  })
  parseSmartEncoding(v: string): boolean {
    return parseOnOff(v);
  }
}
