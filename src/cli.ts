#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { helpFromSnapshot } from './platform/cli/help-snapshot.js';

/** `node dist/cli.js <group> <command> ...` (also `npm run cli -- ...`): see cli-runner.ts. */
const args = process.argv.slice(2);
// Help is answered from the build's snapshot, before the framework or any command is loaded.
const help = helpFromSnapshot(args, process.argv[1]);
if (help) {
  process[help.stream].write(help.text);
  process.exitCode = help.exitCode;
} else {
  const { runInFull } = (await import(fullCli())) as typeof import('./app/cli-main.js');
  await runInFull(args, process.argv[1]);
}

/**
 * The bundle the build makes of the command path (scripts/bundle-cli.mjs): a few dozen chunks
 * to read and compile instead of some 1,900 files resolved, read and compiled one by one.
 * Without it (a build by tsc alone), the compiled modules.
 */
function fullCli(): string {
  const bundle = new URL('./cli-bundle/cli-main.js', import.meta.url);
  return existsSync(bundle) ? bundle.href : './app/cli-main.js';
}
