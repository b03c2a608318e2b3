import 'reflect-metadata';
import type { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CommandFactory, CommandRunnerService } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { CliModule } from './cli.module.js';
import { EXIT_OK, reportError, rethrowCommanderExit } from '../platform/cli/cli-errors.js';
import { assertDatabasesReady, commandNeedsDatabase } from '../database/database-check.js';
import type { AppConfig } from '../config/config.js';
import { acceptAccountBothWays } from '../platform/cli/account-argument.js';
import type { CommanderCommand } from '../platform/cli/cli-command.js';
import { LOG_DB, NOTIFICATION_DB } from '../database/data-sources.js';

/**
 * Runs one admin command (`args` as typed after `cli.js`) and answers its exit code: 0 ok,
 * 1 failure, 2 usage. stdout carries only the answer, so the Nest logger is off; errors go to
 * stderr as one line. The binary (cli.ts) and the in-process CLI tests share this one path.
 */
export async function runCli(config: AppConfig, args: string[], script = 'cli.js'): Promise<number> {
  const needsDatabase = commandNeedsDatabase(args);
  // Checked before anything connects: a clear line naming the database, not a TypeORM retry loop.
  if (needsDatabase) await assertDatabasesReady(config);
  let exitCode = EXIT_OK;
  // The first word names the command group: only that group is loaded (see cli-groups.ts).
  const group = args.find((a) => !a.startsWith('-'));
  const app = await createCliApp(
    config,
    (err: Error) => {
      exitCode = reportError(err);
    },
    group,
  );
  try {
    if (needsDatabase) {
      for (const name of [undefined, LOG_DB, NOTIFICATION_DB])
        await app.get<DataSource>(getDataSourceToken(name)).initialize();
    }
    // Commander reads a command line as node gives it: the interpreter, the script (its name is
    // the program's name in help), then the arguments.
    await app.get(CommandRunnerService).run([process.execPath, script, ...args]);
  } finally {
    await app.close();
  }
  return exitCode;
}

/** The CLI's Nest context with one group's commands registered (every group's without one), nothing connected. */
export async function createCliApp(
  config: AppConfig,
  onCommandError: (err: Error) => void = reportError,
  group?: string,
) {
  const app = await CommandFactory.createWithoutRunning(await CliModule.forRoot(config, group), {
    logger: false,
    // Nest would otherwise abort() on a failed start (a core dump, exit 134) instead of throwing.
    abortOnError: false,
    version: config.version,
    // Usage errors and --help arrive as thrown CommanderErrors, command failures as whatever
    // the service threw; reportError maps both to an exit code.
    errorHandler: rethrowCommanderExit,
    serviceErrorHandler: onCommandError,
  });
  const accounts = programOf(app).commands.find((c) => c.name() === 'accounts');
  if (accounts) acceptAccountBothWays(accounts);
  return app;
}

/** The program nest-commander built (a private field in its typings; public in its code). */
export function programOf(app: INestApplicationContext): CommanderCommand {
  return (app.get(CommandRunnerService) as unknown as { commander: CommanderCommand }).commander;
}
