import 'reflect-metadata';
import { getDataSourceToken } from '@nestjs/typeorm';
import { CommandFactory, CommandRunnerService } from 'nest-commander';
import type { DataSource } from 'typeorm';
import { CliModule } from '../../src/cli.module.js';
import {
  EXIT_FAILURE,
  EXIT_OK,
  oneLine,
  reportError,
  rethrowCommanderExit,
} from '../../src/common/cli/cli-errors.js';
import { assertDatabasesReady, commandNeedsDatabase } from '../../src/common/cli/database-check.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { LOG_DB, NOTIFICATION_DB } from '../../src/database/data-sources.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The steps of src/cli.ts's main(), run in the test process: the same module, checks, error
 * mapping and exit codes, without starting Node and loading Nest for every command. Output is
 * taken from process.stdout/stderr while the command runs, so runs go one at a time.
 * Suites keep a few runs of the real binary for what only a process shows (its exit status,
 * its streams as pipes, its start as `npx bulk-messaging`).
 */
async function runOnce(env: Record<string, string>, args: string[]): Promise<number> {
  let config;
  try {
    config = loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    return EXIT_FAILURE;
  }
  const needsDatabase = commandNeedsDatabase(args);
  if (needsDatabase) await assertDatabasesReady(config);
  let exitCode = EXIT_OK;
  const app = await CommandFactory.createWithoutRunning(CliModule.forRoot(config), {
    logger: false,
    abortOnError: false,
    version: config.version,
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
    // runApplication reads process.argv; the runner it calls takes the arguments instead, as
    // node gives them: the interpreter, the script, then the command line.
    await app.get(CommandRunnerService).run([process.execPath, 'cli.js', ...args]);
  } finally {
    await app.close();
  }
  return exitCode;
}

let queue: Promise<unknown> = Promise.resolve();

export function runCli(env: Record<string, string>, args: string[]): Promise<CliRun> {
  const run = queue.then(() => capture(env, args));
  queue = run.catch(() => undefined);
  return run;
}

async function capture(env: Record<string, string>, args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const out = process.stdout.write;
  const err = process.stderr.write;
  const into = (append: (s: string) => void) =>
    ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    }) as typeof process.stdout.write;
  process.stdout.write = into((s) => (stdout += s));
  process.stderr.write = into((s) => (stderr += s));
  let code: number;
  try {
    code = await runOnce(env, args);
  } catch (e) {
    process.stderr.write(`error: ${oneLine(e)}\n`);
    code = EXIT_FAILURE;
  } finally {
    process.stdout.write = out;
    process.stderr.write = err;
  }
  return { code, stdout, stderr };
}
