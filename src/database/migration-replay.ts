import type { DataSource, QueryRunner } from 'typeorm';
import { errnoOf } from './conflict-retry.js';

/**
 * The errors a schema statement fails with when what it makes is already there, or what it
 * removes is already gone: table exists, duplicate column, duplicate key name, cannot drop
 * (absent) column or key, multiple primary keys, duplicate foreign key name.
 */
const ALREADY_DONE = new Set([1050, 1060, 1061, 1091, 1068, 1826]);
const SCHEMA_STATEMENT = /^\s*(CREATE|ALTER|DROP|RENAME)\s/i;

/**
 * Makes the data source's migrations safe to run again after an interruption. MySQL commits
 * each schema statement on its own, so a process that dies (or loses its server) between a
 * migration's statements and the row that records it leaves the migration applied in part, or
 * whole, and unrecorded; the next run would fail on it ("Table ... already exists") on every
 * start. Each schema statement is atomic (MariaDB 10.6+, MySQL 8), so a statement refused
 * because its effect is already there was applied before: it is skipped (and reported), and
 * the migration goes on to the statements that were not. The migrations' data statements are
 * written to be run twice.
 */
export function makeMigrationsReplaySafe(
  ds: DataSource,
  onSkip: (migration: string, sql: string) => void,
): void {
  for (const migration of ds.migrations) {
    const up = migration.up.bind(migration);
    const name = migration.name ?? migration.constructor.name;
    migration.up = (q: QueryRunner) => up(skippingDone(q, (sql) => onSkip(name, sql)));
  }
}

function skippingDone(q: QueryRunner, onSkip: (sql: string) => void): QueryRunner {
  return new Proxy(q, {
    get(target, prop, receiver) {
      if (prop !== 'query') return Reflect.get(target, prop, receiver) as unknown;
      return async (sql: string, ...rest: unknown[]) => {
        try {
          return await (target.query as (sql: string, ...rest: unknown[]) => Promise<unknown>).call(
            target,
            sql,
            ...rest,
          );
        } catch (err) {
          const errno = errnoOf(err);
          if (errno === undefined || !ALREADY_DONE.has(errno) || !SCHEMA_STATEMENT.test(sql)) throw err;
          onSkip(sql);
          return undefined;
        }
      };
    },
  });
}
