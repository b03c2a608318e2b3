import { Inject } from '@nestjs/common';
import { SubCommand } from 'nest-commander';
import type { DataSourceOptions } from 'typeorm';
import { CliCommand } from '../platform/cli/cli-command.js';
import { printJson, printLine } from '../platform/cli/output.js';
import { APP_CONFIG, dotenvFile, type AppConfig, type DatabaseConfig } from '../config/config.js';
import { databaseState, describeDatabase, migrateDatabase } from './database-setup.js';
import { partitionsAhead } from './partitions/partitions-ahead.js';
import {
  logDataSourceOptions,
  mainDataSourceOptions,
  notificationDataSourceOptions,
} from './data-sources.js';

interface Target {
  name: 'main' | 'log' | 'notification';
  variable: 'DATABASE_URL' | 'LOG_DATABASE_URL' | 'NOTIFICATION_DATABASE_URL';
  db: DatabaseConfig;
  options: DataSourceOptions;
}

/** The three databases, in the order they are checked and migrated. */
export function databaseTargets(config: AppConfig): Target[] {
  return [
    { name: 'main', variable: 'DATABASE_URL', db: config.database, options: mainDataSourceOptions(config) },
    {
      name: 'log',
      variable: 'LOG_DATABASE_URL',
      db: config.logDatabase,
      options: logDataSourceOptions(config),
    },
    {
      name: 'notification',
      variable: 'NOTIFICATION_DATABASE_URL',
      db: config.notificationDatabase,
      options: notificationDataSourceOptions(config),
    },
  ];
}

@SubCommand({
  name: 'status',
  description: 'list applied and pending migrations of each database (changes nothing)',
})
export class DbStatusCommand extends CliCommand {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  async run(_: string[], o: { json?: boolean }): Promise<void> {
    const states = [];
    for (const t of databaseTargets(this.config))
      states.push({ name: t.name, ...(await databaseState(t.options, t.db)) });
    if (o.json) return printJson({ env_file: dotenvFile() ?? null, databases: states });
    printLine(
      `configuration: ${dotenvFile() ? `environment and ${dotenvFile()}` : 'environment only (no .env found)'}`,
    );
    for (const s of states) {
      const verdict = !s.exists
        ? 'missing'
        : s.pending.length
          ? `${s.pending.length} pending migration(s)`
          : 'up to date';
      printLine(`${s.name}: ${s.url}: ${verdict}`);
      for (const m of s.applied) printLine(`  applied  ${m}`);
      for (const m of s.pending) printLine(`  pending  ${m}`);
    }
  }
}

@SubCommand({ name: 'migrate', description: 'create missing databases and apply pending migrations' })
export class DbMigrateCommand extends CliCommand {
  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {
    super();
  }

  async run(_: string[], o: { json?: boolean }): Promise<void> {
    const results = [];
    for (const t of databaseTargets(this.config)) {
      const r = await migrateDatabase(t.options, t.db);
      results.push({ name: t.name, url: describeDatabase(t.db), created: r.created, applied: r.applied });
    }
    const targets = databaseTargets(this.config);
    const [main, notification, log] = (['main', 'notification', 'log'] as const).map((name) =>
      targets.find((t) => t.name === name)!,
    );
    const partitions = await partitionsAhead(
      main.options,
      notification.options,
      log.options,
      this.config.retention,
    );
    if (o.json) return printJson({ databases: results, partitions_added: partitions });
    for (const r of results) {
      const what = [
        r.created ? 'created' : '',
        r.applied.length ? `applied ${r.applied.join(', ')}` : 'no pending migrations',
      ];
      printLine(`${r.name}: ${r.url}: ${what.filter(Boolean).join('; ')}`);
    }
    if (partitions === null)
      printLine('partitions: another process holds the retention lock; the workers make them');
    else if (partitions.length) printLine(`partitions made ahead: ${partitions.join(', ')}`);
  }
}

/** The `db` group is put together in app/cli-db-group.ts, beside the retention commands. */
export const DB_SUBCOMMANDS = [DbStatusCommand, DbMigrateCommand];
