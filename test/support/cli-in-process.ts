import { runCli as runCommand } from '../../src/app/cli-runner.js';
import { EXIT_FAILURE, oneLine } from '../../src/platform/cli/cli-errors.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * The CLI's own path (src/app/cli-runner.ts) run in the test process: the same module, checks,
 * error mapping and exit codes, without starting Node and loading Nest for every command.
 * Output is taken from process.stdout/stderr while the command runs, so runs go one at a time.
 * Suites keep a few runs of the real binary for what only a process shows (its exit status,
 * its streams as pipes, its start as `node dist/cli.js`).
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
  return runCommand(config, args);
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
