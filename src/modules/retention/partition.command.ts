import { Inject } from '@nestjs/common';
import { Option, SubCommand } from 'nest-commander';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { makePartitionsAhead, partitionTables } from '../../database/partitions/partition-maintenance.js';
import { PartitionStore } from '../../database/partitions/partition.store.js';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { CLI_LOCK_WAIT_SECONDS, WAIT_OPTION } from './lock-wait.js';
import { RetentionStore } from './retention.store.js';

@SubCommand({
  name: 'partition',
  description:
    'partition the message tables, delivery_reports, callback_attempts and request_logs by day where they are not yet (each table copied once: writes to it wait meanwhile), then make the days ahead',
})
export class DbPartitionCommand extends CliCommand {
  constructor(
    private readonly partitions: PartitionStore,
    private readonly retention: RetentionStore,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], o: { json?: boolean; wait?: number }): Promise<void> {
    const plan = {
      aheadDays: this.config.retention.partitionDaysAhead,
      spanDays: this.config.retention.partitionSpanDays,
    };
    const wait = o.wait ?? CLI_LOCK_WAIT_SECONDS;
    const done = await this.retention.exclusively(
      this.retention.lockName(),
      async () => ({
        converted: await partitionTables(this.partitions, plan),
        ahead: await makePartitionsAhead(this.partitions, plan),
      }),
      wait,
    );
    if (!done)
      throw new CommandError(
        `Another process held the retention lock (a prune) for ${wait} s; nothing was changed.`,
      );
    const converted = done.converted.map((c) => ({
      table: c.table,
      partitions: c.added.length,
      seconds: Math.round(c.seconds * 10) / 10,
    }));
    const ahead = done.ahead.flatMap((c) => c.added.map((name) => `${c.table}.${name}`));
    if (o.json) return printJson({ converted, partitions_added: ahead });
    if (converted.length === 0)
      printLine(
        'The message tables, delivery_reports, callback_attempts and request_logs were partitioned already.',
      );
    for (const c of converted)
      printLine(`${c.table}: partitioned into ${c.partitions} day partition(s) and pmax in ${c.seconds} s`);
    if (ahead.length) printLine(`partitions made ahead: ${ahead.join(', ')}`);
  }

  @Option({ flags: WAIT_OPTION.flags, description: WAIT_OPTION.description })
  parseWait(v: string): number {
    return WAIT_OPTION.parse(v);
  }
}
