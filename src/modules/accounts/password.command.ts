import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { AccountsService } from './accounts.service.js';
import { CREDENTIAL_CACHE_TTL_MS } from './password-policy.js';
import { readNewPassword, type PasswordOptions } from './password-input.js';

@SubCommand({
  name: 'password',
  description: "change an account's password (the chat and balance username/password)",
})
export class AccountsPasswordCommand extends CliCommand {
  constructor(private readonly accounts: AccountsService) {
    super();
  }

  async run(_: string[], o: PasswordOptions & { username: string; json?: boolean }): Promise<void> {
    const password = await readNewPassword(o);
    const a = await this.accounts.changePassword(o.username, password);
    const view = { username: a.username, password_changed: true };
    if (o.json) return printJson(view);
    printLine(
      `Password changed for ${a.username}; the old one stops working within ${Math.ceil(CREDENTIAL_CACHE_TTL_MS / 1000)} s on every API process.`,
    );
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--password-stdin',
    description: 'read the new password from standard input (recommended)',
  })
  parsePasswordStdin(): boolean {
    return true;
  }

  @Option({
    flags: '--password <password>',
    description: 'the new password on the command line (visible in ps; prefer --password-stdin)',
  })
  parsePassword(v: string): string {
    return v;
  }
}
