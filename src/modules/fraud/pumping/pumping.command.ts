import { Option, SubCommand } from 'nest-commander';
import { CliCommand } from '../../../platform/cli/cli-command.js';
import { UsageError } from '../../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../../platform/cli/output.js';
import { collect } from '../../../platform/cli/parsers.js';
import { AccountsService } from '../../accounts/accounts.service.js';
import { normalisePhone } from '../../messages/recipients.js';
import { PumpingState, type ActiveBlock } from './pumping-state.service.js';
import { PumpingStore } from './pumping.store.js';

interface FraudOptions {
  json?: boolean;
  username: string;
  monitor?: boolean;
  enforce?: boolean;
  safeList?: string[];
  removeSafe?: string[];
  clear?: boolean;
}

function digits(flag: string, raw: string): string {
  const check = normalisePhone(raw);
  if (!check.ok) throw new UsageError(`${flag} ${raw}: ${check.reason}`);
  return check.value;
}

const view = (side: 'live' | 'test') => (b: ActiveBlock) => ({
  side,
  kind: b.kind,
  value: b.value,
  until: b.until.toISOString(),
});

@SubCommand({
  name: 'fraud',
  description:
    "the traffic-pumping guard of the account's verification codes and auto-replies: shows its blocks; --monitor logs and counts would-be blocks without refusing (--enforce refuses again), --safe-list NUMBER is never blocked (--remove-safe NUMBER), --clear lifts every block and forgets the hourly counts",
})
export class AccountsFraudCommand extends CliCommand {
  constructor(
    private readonly accounts: AccountsService,
    private readonly store: PumpingStore,
    private readonly state: PumpingState,
  ) {
    super();
  }

  async run(_: string[], o: FraudOptions): Promise<void> {
    if (o.monitor && o.enforce) throw new UsageError('--monitor and --enforce together');
    const add = (o.safeList ?? []).map((n) => digits('--safe-list', n));
    const remove = (o.removeSafe ?? []).map((n) => digits('--remove-safe', n));
    const account = await this.accounts.requireByUsername(o.username);
    const settings = await this.store.settings(account.id);
    const changed = o.monitor || o.enforce || add.length > 0 || remove.length > 0;
    if (changed) {
      if (o.monitor) settings.monitor = true;
      if (o.enforce) settings.monitor = false;
      const safe = new Set(settings.safeList);
      for (const n of add) safe.add(n);
      for (const n of remove) safe.delete(n);
      settings.safeList = [...safe].sort();
      await this.store.save(account.id, settings);
    }
    let lifted = 0;
    if (o.clear)
      for (const testMode of [false, true])
        lifted += await this.state.clear({ accountId: account.id, testMode });
    const blocks = [
      ...(await this.state.blocks({ accountId: account.id, testMode: false })).map(view('live')),
      ...(await this.state.blocks({ accountId: account.id, testMode: true })).map(view('test')),
    ];
    const result = {
      username: account.username,
      mode: settings.monitor ? 'monitor' : 'enforce',
      safe_list: settings.safeList,
      blocks,
      ...(o.clear ? { lifted } : {}),
    };
    if (o.json) return printJson(result);
    printLine(
      `Pumping guard of ${account.username}: ${result.mode}${settings.monitor ? ' (nothing refused)' : ''}`,
    );
    printLine(`  safe list: ${settings.safeList.length ? settings.safeList.join(', ') : '(none)'}`);
    if (o.clear) printLine(`  lifted ${lifted} block(s)`);
    if (blocks.length === 0) printLine('  blocks: none');
    for (const b of blocks) printLine(`  blocked ${b.kind} ${b.value} (${b.side}) until ${b.until}`);
  }

  @Option({ flags: '--username <username>', required: true })
  parseUsername(v: string): string {
    return v;
  }

  @Option({ flags: '--monitor', description: 'log and count would-be blocks, refuse nothing' })
  parseMonitor(): boolean {
    return true;
  }

  @Option({ flags: '--enforce', description: 'leave monitor mode: blocks refuse codes and replies again' })
  parseEnforce(): boolean {
    return true;
  }

  @Option({ flags: '--safe-list <number>', description: 'a number never blocked (repeat for more)' })
  parseSafeList(v: string, previous?: string[]): string[] {
    return collect(v, previous);
  }

  @Option({
    flags: '--remove-safe <number>',
    description: 'take a number off the safe list (repeat for more)',
  })
  parseRemoveSafe(v: string, previous?: string[]): string[] {
    return collect(v, previous);
  }

  @Option({ flags: '--clear', description: "lift the account's blocks and forget its hourly counts" })
  parseClear(): boolean {
    return true;
  }
}
