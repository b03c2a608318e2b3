import mysql2 from 'mysql2';
import { randomUUID } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { DataSource, type DataSourceOptions } from 'typeorm';
import { waitForDependency, type StartupLogger } from '../platform/startup/wait-for-dependency.js';
import type { AppConfig, DatabaseConfig } from '../config/config.js';
import {
  describeDatabase,
  ensureDatabase,
  isRetryableMigrationError,
  isTransientDbError,
  runMigrations,
} from './database-setup.js';
import { retryWriteConflicts } from './conflict-retry.js';
import { MAIN_MIGRATIONS, LOG_MIGRATIONS, NOTIFICATION_MIGRATIONS } from './migrations/index.js';

export const LOG_DB = 'log';
export const NOTIFICATION_DB = 'notification';

export type Entities = NonNullable<DataSourceOptions['entities']>;
export const LOG_ENTITIES: DataSourceOptions['entities'] = [];
export const NOTIFICATION_ENTITIES: DataSourceOptions['entities'] = [];

/**
 * mysql2 with every pooled connection's session in UTC, so column defaults such as
 * CURRENT_TIMESTAMP(3) agree with the UTC values the driver writes (timezone 'Z'),
 * whatever the server's own time zone.
 */
const utcMysql = {
  ...mysql2,
  createPool(options: mysql2.PoolOptions) {
    const pool = mysql2.createPool(options);
    pool.on('connection', (conn) => conn.query("SET time_zone = '+00:00'"));
    return pool;
  },
};

/**
 * A Date as the driver writes it under timezone 'Z' ('YYYY-MM-DD HH:MM:SS.mmm', UTC), made by
 * the engine's own toISOString: for a time repeated on many rows, formatted once rather than
 * by the driver for every row (a dozen small strings each time).
 */
export function sqlDateTime(d: Date): string;
export function sqlDateTime(d: Date | null): string | null;
export function sqlDateTime(d: Date | null): string | null {
  if (!d) return d;
  // The same time is often formatted several times in a row (a request's row, then its messages').
  const time = d.getTime();
  if (time !== lastTime) {
    lastText = d.toISOString().slice(0, 23).replace('T', ' ');
    lastTime = time;
  }
  return lastText;
}
let lastTime = NaN;
let lastText = '';

function mysqlOptions(db: DatabaseConfig, poolSize: number) {
  return {
    type: 'mysql' as const,
    driver: utcMysql,
    host: db.host,
    port: db.port,
    username: db.username,
    password: db.password,
    database: db.database,
    charset: 'utf8mb4_unicode_ci',
    timezone: 'Z',
    supportBigNumbers: true,
    bigNumberStrings: true,
    synchronize: false,
    migrationsRun: false,
    poolSize,
    // trace: false: no stack trace captured on every query for the rare one that fails; errors
    // are classified by their code.
    extra: { connectTimeout: 5000, enableKeepAlive: true, trace: false },
  };
}

/**
 * The main database. Its entity classes belong to the features; the composition root passes
 * them (src/app/entities.ts). Migrating needs none.
 */
export function mainDataSourceOptions(config: AppConfig, entities: Entities = []): DataSourceOptions {
  const options = mysqlOptions(config.database, config.dbPoolSize);
  return {
    ...options,
    // The send committer writes a batch's statements in one round trip (send.committer.ts).
    // Every statement text in src is built from constants and placeholders (the source review
    // in test/e2e/injection.e2e-spec.ts), so no value can add a statement of its own.
    extra: { ...options.extra, multipleStatements: true },
    entities,
    migrations: MAIN_MIGRATIONS,
  };
}

/** The lag-tolerant reads' database (DATABASE_READ_URL): queried only, never migrated. */
export function readDataSourceOptions(db: DatabaseConfig, poolSize: number): DataSourceOptions {
  return { ...mysqlOptions(db, poolSize), entities: [], migrations: [] };
}

export function logDataSourceOptions(config: AppConfig): DataSourceOptions {
  return { ...mysqlOptions(config.logDatabase, 5), entities: LOG_ENTITIES, migrations: LOG_MIGRATIONS };
}

export function notificationDataSourceOptions(config: AppConfig): DataSourceOptions {
  return {
    ...mysqlOptions(config.notificationDatabase, 5),
    entities: NOTIFICATION_ENTITIES,
    migrations: NOTIFICATION_MIGRATIONS,
  };
}

/** Whether the server answers at all: the part of start-up worth waiting for. */
async function pingServer(db: DatabaseConfig): Promise<void> {
  const conn = await createConnection({
    host: db.host,
    port: db.port,
    user: db.username,
    password: db.password,
    connectTimeout: 5000,
  });
  await conn.end();
}

/** One wait per server, shared by the databases on it, so a retry is one line, not three. */
const serverWaits = new Map<string, Promise<void>>();

function waitForServer(db: DatabaseConfig, waitSeconds: number, logger: StartupLogger): Promise<void> {
  const key = `${db.username}@${db.host}:${db.port}`;
  let wait = serverWaits.get(key);
  if (!wait) {
    wait = waitForDependency(`MySQL at ${db.host}:${db.port}`, () => pingServer(db), {
      waitSeconds,
      isTransient: isTransientDbError,
      logger,
    }).finally(() => serverWaits.delete(key));
    serverWaits.set(key, wait);
  }
  return wait;
}

/**
 * Opens a data source for a starting process: waits (STARTUP_WAIT_SECONDS) for the server,
 * creates the database if it is missing and runs pending migrations, saying so in the log.
 * A try that fails on a transient error (the server or a cluster node gone for a moment) is
 * made again within the same wait, holding the same migration lock.
 */
export async function openDataSource(
  options: DataSourceOptions,
  db: DatabaseConfig,
  waitSeconds: number,
  logger: StartupLogger,
): Promise<DataSource> {
  await waitForServer(db, waitSeconds, logger);
  const holder = randomUUID();
  const warn = (message: string) => logger.warn(message);
  return waitForDependency(
    `the migrations of ${describeDatabase(db)}`,
    async () => {
      if (await ensureDatabase(db)) logger.log(`created database ${describeDatabase(db)}`);
      const ds = retryWriteConflicts(await new DataSource(options).initialize());
      try {
        for (const name of await runMigrations(ds, db, { holder, warn }))
          logger.log(`applied migration ${name} to ${db.database}`);
      } catch (err) {
        await ds.destroy().catch(() => undefined);
        throw err;
      }
      return ds;
    },
    { waitSeconds, isTransient: isRetryableMigrationError, logger },
  );
}
