import { Command, Option, SubCommand } from 'nest-commander';
import { CliCommand, CommandGroup } from '../../platform/cli/cli-command.js';
import { CommandError, UsageError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { RequestLogPruner } from './request-log.pruner.js';

function parseDays(value: string): number {
  const n = /^\d{1,5}$/.test(value.trim()) ? Number(value) : NaN;
  if (!(n >= 1 && n <= 36_500)) throw new UsageError('Expected a whole number of days from 1 to 36500.');
  return n;
}

@SubCommand({
  name: 'prune',
  description: 'delete request logs older than the retention period (REQUEST_LOG_RETENTION_DAYS, default 30)',
})
export class LogsPruneCommand extends CliCommand {
  constructor(private readonly pruner: RequestLogPruner) {
    super();
  }

  async run(_: string[], o: { json?: boolean; olderThanDays?: number }): Promise<void> {
    const r = await this.pruner.prune(o.olderThanDays);
    if (!r) throw new CommandError('Another process is pruning the request logs; nothing was removed.');
    const view = {
      deleted: r.deleted,
      older_than_days: r.olderThanDays,
      cutoff: r.cutoff.toISOString(),
      partitions_dropped: r.partitionsDropped,
    };
    if (o.json) return printJson(view);
    printLine(
      `Deleted ${view.deleted} request log row(s) older than ${view.cutoff} (${view.older_than_days} days)`,
    );
    if (view.partitions_dropped.length)
      printLine(`day partitions dropped whole: ${view.partitions_dropped.join(', ')}`);
  }

  @Option({
    flags: '--older-than-days <n>',
    description: 'keep this many days instead of the configured retention',
  })
  parseOlderThanDays(v: string): number {
    return parseDays(v);
  }
}

const SUBCOMMANDS = [LogsPruneCommand];

@Command({ name: 'logs', description: 'manage request logs (the log database)', subCommands: SUBCOMMANDS })
export class LogsCommand extends CommandGroup {}

/** Every provider the logs commands need registered (nest-commander discovers subcommands as providers). */
export const LOG_COMMANDS = [LogsCommand, ...SUBCOMMANDS, RequestLogPruner];
