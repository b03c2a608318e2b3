#!/usr/bin/env node
import { helpFromSnapshot } from './platform/cli/help-snapshot.js';

/** `node dist/cli.js <group> <command> ...` (also `npx bulk-messaging ...`): see cli-runner.ts. */
const args = process.argv.slice(2);
// Help is answered from the build's snapshot, before the framework or any command is loaded.
const help = helpFromSnapshot(args, process.argv[1]);
if (help) {
  process[help.stream].write(help.text);
  process.exitCode = help.exitCode;
} else {
  await runInFull();
}

async function runInFull(): Promise<void> {
  await import('reflect-metadata');
  const { EXIT_FAILURE, oneLine } = await import('./platform/cli/cli-errors.js');
  const { loadConfigOrExit } = await import('./config/load-or-exit.js');
  const { runCli } = await import('./app/cli-runner.js');
  // Exit explicitly: a pool or timer some library leaves behind must not keep an admin command alive.
  await runCli(loadConfigOrExit(), args, process.argv[1]).then(
    (code) => process.exit(code),
    (err: unknown) => {
      process.stderr.write(`error: ${oneLine(err)}\n`);
      process.exit(EXIT_FAILURE);
    },
  );
}
