import { Help, Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { UsageError } from '../../platform/cli/cli-errors.js';
import { parseDailyLimit } from '../../platform/cli/parsers.js';
import { ApiKeysService } from '../api-keys/api-keys.service.js';
import { limitView, printLimit } from './limit-view.js';
import { SpendLimits } from './spend-limits.service.js';

const NONE = 'none';

@SubCommand({
  name: 'limit',
  arguments: '<id>',
  description: "show, set or clear a key's daily spend limit, with what it has spent today (UTC)",
})
export class KeysLimitCommand extends CliCommand {
  constructor(
    private readonly keys: ApiKeysService,
    private readonly spend: SpendLimits,
  ) {
    super();
  }

  async run([id]: string[], o: { daily?: string; clear?: boolean; json?: boolean }): Promise<void> {
    if (o.daily !== undefined && o.clear) throw new UsageError('--daily and --clear cannot be used together');
    const change = o.clear || o.daily === NONE ? null : o.daily;
    if (change !== undefined) await this.keys.update(id, { dailyLimit: change });
    const key = await this.keys.describe(id);
    const now = new Date();
    const spent = await this.spend.spentToday('key', key.id, now);
    printLimit(
      {
        id: key.id,
        name: key.name,
        username: key.username,
        mode: key.mode,
        ...limitView(key.dailyLimit, spent, now),
      },
      o.json,
    );
  }

  @Option({
    flags: '--daily <amount|none>',
    description: "the most the key may spend per UTC day, in the account's currency; none removes the limit",
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
Without --daily or --clear, shows the limit and today's spend (a test key spends nothing).
The same limit is set by keys create|update --daily-limit. A revoked key cannot be changed (exit 1).`;
  }
}
