import 'reflect-metadata';
import { EXIT_FAILURE, oneLine } from '../platform/cli/cli-errors.js';
import { loadConfigOrExit } from '../config/load-or-exit.js';
import { runCli } from './cli-runner.js';

/**
 * Everything the CLI does beyond help: the settings, then the command. The build bundles this
 * file with all it imports into dist/cli-bundle/ (scripts/bundle-cli.mjs), which cli.js loads.
 */
export async function runInFull(args: string[], script: string | undefined): Promise<never> {
  // Exit explicitly: a pool or timer some library leaves behind must not keep an admin command alive.
  return runCli(loadConfigOrExit(), args, script).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`error: ${oneLine(err)}\n`);
      process.exit(EXIT_FAILURE);
    },
  );
}
