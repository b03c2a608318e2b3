import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { AppException } from '../../platform/errors/app.exception.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { ErasureService } from './erasure.service.js';

@SubCommand({
  name: 'erase-recipient',
  description:
    "erase a recipient's number and message text from the account's tables and archive (amounts stay)",
})
export class AccountsEraseRecipientCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly erasure: ErasureService,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; username?: string; recipient?: string }): Promise<void> {
    if (!o.username || !o.recipient) throw new CommandError('--username and --recipient are required');
    const account = await this.accounts.requireByUsername(o.username);
    const r = await this.erasure
      .eraseRecipient({ accountId: account.id }, o.recipient)
      .catch((err: unknown) => {
        // The service speaks HTTP's envelope; the CLI says the sentence.
        if (err instanceof AppException) throw new CommandError(err.details[0]?.message ?? err.message);
        throw err;
      });
    if (o.json) return printJson(r);
    printLine(`Erased ${r.recipient} from ${o.username}: ${r.total} row(s)`);
    for (const [what, n] of Object.entries(r.rows)) printLine(`  ${what.padEnd(18)} ${n}`);
    if (r.archive_files) printLine(`${r.archive_files} archive file(s) rewritten and verified`);
    if (r.pending)
      printLine(
        `${r.pending} message(s) or verification(s) not yet final were left; erase again once they end`,
      );
  }

  @Option({ flags: '--username <username>', description: 'the account', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--recipient <recipient>',
    description: 'the phone number or e-mail address',
    required: true,
  })
  parseRecipient(v: string): string {
    return v;
  }
}
