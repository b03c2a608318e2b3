import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { HELP_SNAPSHOT_FILE, PROGRAM_PLACEHOLDER, type HelpSnapshot } from '../platform/cli/help-snapshot.js';
import type { CommanderCommand } from '../platform/cli/cli-command.js';
import { createCliApp, programOf } from './cli-runner.js';

/** What `--help` prints for a command: commander's text and any text added before or after it. */
function helpOf(command: CommanderCommand): string {
  let text = '';
  command.configureOutput({ writeOut: (s) => (text += s), writeErr: (s) => (text += s) });
  command.outputHelp();
  return text;
}

/**
 * Writes the admin CLI's help texts for the build (`npm run build` runs this after tsc): the
 * program's, each group's and each command's, exactly as commander prints them at 80 columns.
 */
export async function writeHelpSnapshot(): Promise<HelpSnapshot> {
  const app = await createCliApp(loadConfig({}));
  try {
    const root = programOf(app);
    root.name(PROGRAM_PLACEHOLDER);
    const snapshot: HelpSnapshot = { texts: { '': helpOf(root) }, groups: [] };
    for (const group of root.commands) {
      snapshot.texts[group.name()] = helpOf(group);
      if (group.commands.length) snapshot.groups.push(group.name());
      for (const command of group.commands) {
        const path = `${group.name()} ${command.name()}`;
        snapshot.texts[path] = helpOf(command);
        // A group within a group (`smpp credentials create`).
        if (command.commands.length) snapshot.groups.push(path);
        for (const leaf of command.commands) snapshot.texts[`${path} ${leaf.name()}`] = helpOf(leaf);
      }
    }
    writeFileSync(HELP_SNAPSHOT_FILE, `${JSON.stringify(snapshot)}\n`);
    return snapshot;
  } finally {
    await app.close();
  }
}
