import { Inject, Injectable } from '@nestjs/common';
import { Option, SubCommand } from 'nest-commander';
import { APP_CONFIG, type AppConfig } from '../../config/config.js';
import { CliCommand } from '../../platform/cli/cli-command.js';
import { CommandError } from '../../platform/cli/cli-errors.js';
import { printJson, printLine } from '../../platform/cli/output.js';
import { parseIsoDate } from '../../platform/cli/parsers.js';
import { lowerCpuPriority } from '../../platform/startup/cpu-priority.js';
import { DbHashOutboxCommand } from './hash-outbox.command.js';
import { CLI_LOCK_WAIT_SECONDS, WAIT_OPTION } from './lock-wait.js';
import { DbPartitionCommand } from './partition.command.js';
import type { RemovedCounts } from './retention.store.js';
import { RetentionService, type PruneResult } from './retention.service.js';

interface PruneFlags {
  json?: boolean;
  before?: Date;
  wait?: number;
}

/** Progress on stderr, at most once a second, so stdout keeps the answer alone. */
function progressPrinter(): (removed: RemovedCounts) => void {
  const started = Date.now();
  let last = 0;
  return (removed) => {
    const now = Date.now();
    if (now - last < 1000) return;
    last = now;
    const rate = Math.round(removed.messages / Math.max(0.001, (now - started) / 1000));
    process.stderr.write(`removed ${removed.messages} message(s) so far (${rate}/s)\n`);
  };
}

function view(r: PruneResult) {
  return {
    before: r.before.toISOString(),
    archive_dir: r.archiveDir,
    removed: r.removed,
    archived_rows: r.archived.rows,
    partitions_dropped: r.partitions.dropped,
    partitions_kept: r.partitions.kept,
    seconds: Math.round(r.seconds * 10) / 10,
  };
}

// Decorated so its constructor's parameter types are recorded for the subcommands that inherit it.
@Injectable()
abstract class RetentionCommand extends CliCommand {
  protected abstract readonly requireArchive: boolean;

  constructor(
    private readonly retention: RetentionService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async run(_: string[], o: PruneFlags): Promise<void> {
    // A prune is background work: at RETENTION_NICE it takes the CPU the service leaves.
    lowerCpuPriority(this.config.retention.nice);
    const r = await this.retention.prune({
      before: o.before,
      requireArchive: this.requireArchive,
      onProgress: progressPrinter(),
      lockWaitSeconds: o.wait ?? CLI_LOCK_WAIT_SECONDS,
    });
    if (!r)
      throw new CommandError(
        `Another process is pruning (it held the retention lock for ${o.wait ?? CLI_LOCK_WAIT_SECONDS} s); nothing was removed.`,
      );
    const v = view(r);
    if (o.json) return printJson(v);
    printLine(
      `Removed final messages last changed before ${v.before}${v.archive_dir ? `, archived to ${v.archive_dir}` : ''}:`,
    );
    for (const [table, n] of Object.entries(v.removed)) printLine(`  ${table.padEnd(18)} ${n}`);
    if (v.partitions_dropped.length) printLine(`day partitions dropped: ${v.partitions_dropped.join(', ')}`);
    if (v.partitions_kept.length)
      printLine(`day partitions kept for messages not final yet: ${v.partitions_kept.join(', ')}`);
    printLine(`in ${v.seconds} s`);
  }

  @Option({
    flags: '--before <time>',
    description:
      'remove what was last changed before this ISO date or time (default: now minus MESSAGE_RETENTION_DAYS)',
  })
  parseBefore(v: string): Date {
    return parseIsoDate(v);
  }

  @Option({ flags: WAIT_OPTION.flags, description: WAIT_OPTION.description })
  parseWait(v: string): number {
    return WAIT_OPTION.parse(v);
  }
}

@SubCommand({
  name: 'prune',
  description:
    'remove final messages older than the retention period (MESSAGE_RETENTION_DAYS), archiving them first when ARCHIVE_DIR is set',
})
export class DbPruneCommand extends RetentionCommand {
  protected readonly requireArchive = false;
}

@SubCommand({
  name: 'archive',
  description: 'archive final messages older than the retention period to ARCHIVE_DIR, then remove them',
})
export class DbArchiveCommand extends RetentionCommand {
  protected readonly requireArchive = true;
}

export const RETENTION_SUBCOMMANDS = [
  DbPruneCommand,
  DbArchiveCommand,
  DbHashOutboxCommand,
  DbPartitionCommand,
];
