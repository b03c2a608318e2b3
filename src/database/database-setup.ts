import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { DatabaseConfig } from '../config/config.js';
import { errorText } from '../platform/startup/error-text.js';
import { errnoOf } from './conflict-retry.js';
import { withMigrationLock } from './migration-lock.js';
import { makeMigrationsReplaySafe } from './migration-replay.js';

/** What a log line or error message may show of a database: its URL without the password. */
export function describeDatabase(db: DatabaseConfig): string {
  const auth = db.password
    ? `${encodeURIComponent(db.username)}:***@`
    : `${encodeURIComponent(db.username)}@`;
  return `mysql://${auth}${db.host}:${db.port}/${db.database}`;
}

/** Socket-level failures worth waiting out; anything else (a wrong password, say) is final. */
const TRANSIENT = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
  'ER_SERVER_SHUTDOWN',
]);

export function isTransientDbError(err: unknown): boolean {
  return TRANSIENT.has(String((err as { code?: unknown } | null)?.code ?? ''));
}

/**
 * Besides those, what a starting process's migrations meet when a cluster node drops out and
 * back in, or a lock is slow to come: Galera's "WSREP has not yet prepared node for application
 * use" (1047), a lock wait timeout, a deadlock. Worth trying again once the node is back.
 */
const MIGRATION_RETRYABLE = new Set([1047, 1205, 1213]);

export function isRetryableMigrationError(err: unknown): boolean {
  return isTransientDbError(err) || MIGRATION_RETRYABLE.has(errnoOf(err) ?? 0);
}

export class DatabaseUnavailableError extends Error {
  constructor(db: DatabaseConfig, cause: unknown) {
    super(`cannot reach MySQL for ${describeDatabase(db)}: ${errorText(cause)}`);
    this.name = 'DatabaseUnavailableError';
  }
}

/** A connection to the server only (no database selected), so a missing database is not an error yet. */
export async function connectToServer(db: DatabaseConfig): Promise<Connection> {
  try {
    return await createConnection({
      host: db.host,
      port: db.port,
      user: db.username,
      password: db.password,
      connectTimeout: 5000,
    });
  } catch (err) {
    throw new DatabaseUnavailableError(db, err);
  }
}

export interface DatabaseState {
  url: string;
  database: string;
  exists: boolean;
  applied: string[];
  pending: string[];
}

function migrationNames(options: DataSourceOptions): string[] {
  const classes = (options.migrations ?? []) as Array<new () => { name?: string }>;
  return classes.map((M) => new M().name ?? M.name);
}

/** Reads, without changing anything, whether the database exists and which migrations it has. */
export async function databaseState(options: DataSourceOptions, db: DatabaseConfig): Promise<DatabaseState> {
  const conn = await connectToServer(db);
  try {
    const [schemas] = await conn.query('SELECT 1 FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [
      db.database,
    ]);
    const known = migrationNames(options);
    const state = {
      url: describeDatabase(db),
      database: db.database,
      exists: (schemas as unknown[]).length > 0,
    };
    if (!state.exists) return { ...state, applied: [], pending: known };
    const [tables] = await conn.query(
      "SELECT 1 FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'migrations'",
      [db.database],
    );
    let applied: string[] = [];
    if ((tables as unknown[]).length > 0) {
      const [rows] = await conn.query(
        `SELECT name FROM ${conn.escapeId(db.database)}.migrations ORDER BY id`,
      );
      applied = (rows as Array<{ name: string }>).map((r) => r.name);
    }
    return { ...state, applied, pending: known.filter((n) => !applied.includes(n)) };
  } finally {
    await conn.end();
  }
}

/** Creates the database if it is missing; true when it did. */
export async function ensureDatabase(db: DatabaseConfig): Promise<boolean> {
  const conn = await connectToServer(db);
  try {
    const [result] = await conn.query(
      `CREATE DATABASE IF NOT EXISTS ${conn.escapeId(db.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
    // MySQL reports one affected row when it created the database, none (with a warning) when it existed.
    return (result as { affectedRows?: number }).affectedRows === 1;
  } finally {
    await conn.end();
  }
}

export interface MigrationReport {
  created: boolean;
  applied: string[];
}

/**
 * Runs pending migrations on an initialised data source. A lock serialises migrations when
 * several processes start together (MySQL DDL is not transactional), whichever node of a
 * cluster each one reaches (migration-lock.ts); a migration an interrupted run left applied
 * in part is completed (migration-replay.ts). A caller that tries again after a failure passes
 * the same `holder`.
 */
export async function runMigrations(
  ds: DataSource,
  db: DatabaseConfig,
  opts: { warn: (message: string) => void; holder?: string },
): Promise<string[]> {
  makeMigrationsReplaySafe(ds, (migration, sql) =>
    opts.warn(
      `migration ${migration} on ${db.database}: skipped a statement an interrupted run had applied: ${sql.trim().split('\n')[0]}`,
    ),
  );
  const runner = ds.createQueryRunner();
  try {
    const done = await withMigrationLock(
      runner,
      `migrations:${db.database}`,
      () => ds.runMigrations({ transaction: 'each' }),
      opts.holder,
    );
    return done.map((m) => m.name);
  } finally {
    await runner.release();
  }
}

/** `db migrate`: creates the database when missing and applies pending migrations, then closes. */
export async function migrateDatabase(
  options: DataSourceOptions,
  db: DatabaseConfig,
): Promise<MigrationReport> {
  const created = await ensureDatabase(db);
  // Two connections at least: one holds the migration lock while another runs the migrations.
  const ds = await new DataSource({ ...options, poolSize: 2 } as DataSourceOptions).initialize();
  try {
    const warn = (message: string) => process.stderr.write(`${message}\n`);
    return { created, applied: await runMigrations(ds, db, { warn }) };
  } finally {
    await ds.destroy();
  }
}
