import type { AppConfig } from '../config/config.js';
import { DatabaseUnavailableError, databaseState } from './database-setup.js';
import { databaseTargets } from './db.command.js';

/** How an operator fixes a missing or unmigrated database, whatever the CLI was started as. */
export const MIGRATE_HINT =
  'run `npx bulk-messaging db migrate` (or `node dist/cli.js db migrate`), or start the service once';

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

/**
 * Whether this command line runs a command that uses the databases: anything but help,
 * `--version`, a bare group (which prints its help), `db status` and `db migrate`.
 */
export function commandNeedsDatabase(args: string[]): boolean {
  if (args.some((a) => ['-h', '--help', '-V', '--version', 'help'].includes(a))) return false;
  const operands = args.filter((a) => !a.startsWith('-'));
  // `db status` and `db migrate` open the databases themselves; `db prune` and `db archive` use them.
  return operands.length >= 2 && !(operands[0] === 'db' && ['status', 'migrate'].includes(operands[1]));
}
