import type { AppConfig } from '../config/config.js';
import { DatabaseUnavailableError, databaseState } from './database-setup.js';
import { databaseTargets } from './db.command.js';

/** How an operator fixes a missing or unmigrated database, whatever the CLI was started as. */
export const MIGRATE_HINT =
  'run `npm run cli -- db migrate` (or `node dist/cli.js db migrate`), or start the service once';

export class DatabaseNotReadyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseNotReadyError';
  }
}

/**
 * Before a command that reads or writes data: each database must exist and carry every
 * migration. The CLI never creates or migrates one itself: an admin command pointed at the
 * wrong server (a missing .env, a typo in DATABASE_URL) must say so, not build a new one.
 */
export async function assertDatabasesReady(config: AppConfig): Promise<void> {
  for (const t of databaseTargets(config)) {
    let state;
    try {
      state = await databaseState(t.options, t.db);
    } catch (err) {
      if (err instanceof DatabaseUnavailableError)
        throw new DatabaseNotReadyError(`${err.message} (${t.variable})`);
      throw err;
    }
    if (!state.exists) {
      throw new DatabaseNotReadyError(
        `database ${state.url} (${t.variable}) does not exist; ${MIGRATE_HINT}`,
      );
    }
    if (state.pending.length > 0) {
      throw new DatabaseNotReadyError(
        `database ${state.url} (${t.variable}) is not migrated (${state.pending.length} pending: ${state.pending.join(', ')}); ${MIGRATE_HINT}`,
      );
    }
  }
}

const HELP_WORDS = new Set(['-h', '--help', '-V', '--version', 'help']);

/**
 * Whether this command line runs a command that uses the databases: anything but help,
 * `--version`, a bare group (which prints its help), `db status` and `db migrate`.
 */
export function commandNeedsDatabase(args: string[]): boolean {
  // A word right after an option is that option's value (`--text help`, `--text --help`), not a
  // request for help. (A value after a flag that takes none, `--json help`, then counts as one:
  // the databases are opened and commander prints the help, as it would without them.)
  const takesValue = (prev: string | undefined) =>
    prev !== undefined && prev.startsWith('-') && !prev.includes('=') && !HELP_WORDS.has(prev);
  const asked = args.some((a, i) => HELP_WORDS.has(a) && !takesValue(args[i - 1]));
  if (asked) return false;
  const operands = args.filter((a, i) => !a.startsWith('-') && !takesValue(args[i - 1]));
  // `db status` and `db migrate` open the databases themselves; `db prune` and `db archive` use them.
  return operands.length >= 2 && !(operands[0] === 'db' && ['status', 'migrate'].includes(operands[1]));
}
