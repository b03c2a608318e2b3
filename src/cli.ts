#!/usr/bin/env node
import 'reflect-metadata';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CommandFactory } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { CliModule } from './cli.module.js';
import {
  EXIT_FAILURE,
  EXIT_OK,
  oneLine,
  reportError,
  rethrowCommanderExit,
} from './common/cli/cli-errors.js';
import { assertDatabasesReady, commandNeedsDatabase } from './common/cli/database-check.js';
import { loadConfigOrExit } from './config/load-or-exit.js';
import { LOG_DB, NOTIFICATION_DB } from './database/data-sources.js';

/**
 * `node dist/cli.js <group> <command> ...` (also `npx bulk-messaging ...`). Exit 0 ok,
 * 1 failure, 2 usage. stdout carries only the answer, so the Nest logger is off; errors go
 * to stderr as one line.
 */
async function main(): Promise<number> {
  const config = loadConfigOrExit();
  const needsDatabase = commandNeedsDatabase(process.argv.slice(2));
  // Checked before anything connects: a clear line naming the database, not a TypeORM retry loop.
  if (needsDatabase) await assertDatabasesReady(config);
  let exitCode = EXIT_OK;
  const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(config), {
    logger: false,
    // Nest would otherwise abort() on a failed start (a core dump, exit 134) instead of throwing.
    abortOnError: false,
    version: config.version,
    // Usage errors and --help arrive as thrown CommanderErrors, command failures as whatever
    // the service threw; reportError maps both to an exit code.
    errorHandler: rethrowCommanderExit,
    serviceErrorHandler: (err: Error) => {
      exitCode = reportError(err);
    },
  });
  try {
    if (needsDatabase) {
      for (const name of [undefined, LOG_DB, NOTIFICATION_DB])
        await app.get<DataSource>(getDataSourceToken(name)).initialize();
    }
    await CommandFactory.runApplication(app);
  } finally {
    await app.close();
  }
  return exitCode;
}

// Exit explicitly: a pool or timer some library leaves behind must not keep an admin command alive.
main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${oneLine(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
