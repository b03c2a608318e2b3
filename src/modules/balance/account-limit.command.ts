import { Help, Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { parseDailyLimit } from '../../platform/cli/parsers.js';
import type { Account } from '../accounts/account.entity.js';
import { AccountsService } from '../accounts/accounts.service.js';
import { limitView, printLimit } from './limit-view.js';
import { SpendLimits } from './spend-limits.service.js';

const NONE = 'none';

@SubCommand({
  name: 'limit',
  description:
    "show, set or clear an account's daily spend limit (all its live keys together, and a parent's sub-accounts', per UTC day)",
})
export class AccountsLimitCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly spend: SpendLimits,
  ) {
    super();
  }

  async run(
    _: string[],
    o: { username: string; daily?: string; clear?: boolean; json?: boolean },
  ): Promise<void> {
    if (o.daily !== undefined && o.clear) throw new UsageError('--daily and --clear cannot be used together');
    let account = await this.accounts.requireByUsername(o.username);
    const change = o.clear || o.daily === NONE ? null : o.daily;
    if (change !== undefined) account = await this.accounts.setDailyLimit(o.username, change);
    const now = new Date();
    const spent = await this.spend.spentToday('account', account.id, now);
    printLimit(
      {
        username: account.username,
        currency: account.currency,
        ...limitView(account.dailyLimit, spent, now),
        ...(await this.family(account, now)),
      },
      o.json,
    );
  }

  /**
   * A parent's spend and limit are its family's (its own keys and every sub-account's): how many
   * sub-accounts, and their part of today's spend. A sub-account names its parent, whose limit
   * covers it too.
   */
  private async family(account: Account, now: Date): Promise<Record<string, unknown>> {
    if (account.parentId) {
      const parent = await this.accounts.findById(account.parentId);
      return { parent: parent?.username ?? null };
    }
    const children = await this.accounts.childrenOf(account.id);
    if (children.length === 0) return {};
    return {
      subaccounts: children.length,
      subaccounts_spent_today: await this.spend.spentTodayTogether(children, now),
    };
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({
    flags: '--daily <amount|none>',
    description: 'the most the account may spend per UTC day, in its currency; none removes the limit',
  })
  parseDaily(v: string): string {
    return v.trim().toLowerCase() === NONE ? NONE : parseDailyLimit(v);
  }

  @Option({ flags: '--clear', description: 'remove the limit (same as --daily none)' })
  parseClear(): boolean {
    return true;
  }

  @Help('after')
  limitHelp(): string {
    return `
Without --daily or --clear, shows the limit and today's spend. Spend counts every live charge
net of refunds; test keys spend nothing. A parent's limit and spend cover its sub-accounts too
(subaccounts_spent_today is their part); a sub-account's own limit applies as well, and the
tighter wins. A change reaches running API processes within a second.`;
  }
}
