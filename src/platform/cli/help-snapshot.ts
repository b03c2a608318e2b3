import { readFileSync, statSync } from 'node:fs';
import { basename, extname } from 'node:path';

/**
 * The admin CLI's help texts, written at build time (dist/cli-help.json) so that asking for
 * help loads neither Nest nor a single command module: a few milliseconds instead of the
 * seconds it takes to import the framework and every feature. Any other command line goes the
 * full way, and so does help when the file is missing or older than the build of cli.js.
 */
export const HELP_SNAPSHOT_FILE = new URL('../../cli-help.json', import.meta.url);
const CLI_FILE = new URL('../../cli.js', import.meta.url);

/** The program name the texts are written with, replaced by the real one when printed. */
export const PROGRAM_PLACEHOLDER = '__program__';

export interface HelpSnapshot {
  /** Help text per command path: '' for the program, 'accounts', 'accounts create', ... */
  texts: Record<string, string>;
  /** Paths that are command groups (a bare group prints its help as a usage error). */
  groups: string[];
}

export interface HelpAnswer {
  text: string;
  /** A bare group or no command at all is a usage error: its help goes to stderr, exit 2. */
  stream: 'stdout' | 'stderr';
  exitCode: 0 | 2;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/** Which help text a command line asks for, if it asks for nothing but help. */
export function helpPath(
  args: readonly string[],
  snapshot: HelpSnapshot,
): { path: string; usageError: boolean } | null {
  const known = (p: string) => Object.hasOwn(snapshot.texts, p);
  if (args.length === 0) return { path: '', usageError: true };
  if (args.length === 1 && (HELP_FLAGS.has(args[0]) || args[0] === 'help'))
    return { path: '', usageError: false };
  if (args[0] === 'help')
    return args.length === 2 && known(args[1]) ? { path: args[1], usageError: false } : null;
  const last = args.at(-1)!;
  if (HELP_FLAGS.has(last)) {
    const path = args.slice(0, -1).join(' ');
    return args.length <= 4 && !args.slice(0, -1).some((a) => a.startsWith('-')) && known(path)
      ? { path, usageError: false }
      : null;
  }
  if (args.length <= 2 && snapshot.groups.includes(args.join(' ')))
    return { path: args.join(' '), usageError: true };
  return null;
}

/** The help a command line asks for, from the build's snapshot; null: run the CLI in full. */
export function helpFromSnapshot(args: readonly string[], script: string | undefined): HelpAnswer | null {
  let snapshot: HelpSnapshot;
  try {
    if (statSync(HELP_SNAPSHOT_FILE).mtimeMs < statSync(CLI_FILE).mtimeMs) return null;
    snapshot = JSON.parse(readFileSync(HELP_SNAPSHOT_FILE, 'utf8')) as HelpSnapshot;
  } catch {
    return null;
  }
  const found = helpPath(args, snapshot);
  if (!found) return null;
  // commander names the program after its script, as `node dist/cli.js` (or the package's bin) started it.
  const program = script ? basename(script, extname(script)) : 'cli';
  return {
    text: snapshot.texts[found.path].split(PROGRAM_PLACEHOLDER).join(program),
    stream: found.usageError ? 'stderr' : 'stdout',
    exitCode: found.usageError ? 2 : 0,
  };
}
