#!/usr/bin/env node
import 'reflect-metadata';
import { runCli } from './app/cli-runner.js';
import { EXIT_FAILURE, oneLine } from './platform/cli/cli-errors.js';
import { loadConfigOrExit } from './config/load-or-exit.js';

/** `node dist/cli.js <group> <command> ...` (also `npx bulk-messaging ...`): see cli-runner.ts. */
// Exit explicitly: a pool or timer some library leaves behind must not keep an admin command alive.
runCli(loadConfigOrExit(), process.argv.slice(2), process.argv[1]).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`error: ${oneLine(err)}\n`);
    process.exit(EXIT_FAILURE);
  },
);
