import mysql2 from 'mysql2';
import { createConnection } from 'mysql2/promise';
import { DataSource, type DataSourceOptions } from 'typeorm';
import type { AppConfig, DatabaseConfig } from '../config/config.js';
import { Account } from '../modules/accounts/account.entity.js';
import { ApiKey } from '../modules/api-keys/api-key.entity.js';
import { AccountChannel } from '../modules/balance/account-channel.entity.js';
import { LedgerEntry } from '../modules/balance/ledger-entry.entity.js';
import { Message } from '../modules/messaging/message.entity.js';
import { SendRequest } from '../modules/messaging/send-request.entity.js';
import { MAIN_MIGRATIONS, LOG_MIGRATIONS, NOTIFICATION_MIGRATIONS } from './migrations/index.js';

export const LOG_DB = 'log';
export const NOTIFICATION_DB = 'notification';

export const MAIN_ENTITIES = [Account, ApiKey, AccountChannel, LedgerEntry, SendRequest, Message];
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
    extra: { connectTimeout: 5000, enableKeepAlive: true },
  };
}

export function mainDataSourceOptions(config: AppConfig): DataSourceOptions {
  return { ...mysqlOptions(config.database, config.dbPoolSize), entities: MAIN_ENTITIES, migrations: MAIN_MIGRATIONS };
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

/** Creates the database if it is missing, so a fresh server needs no manual step. */
export async function ensureDatabase(db: DatabaseConfig): Promise<void> {
  const conn = await createConnection({
    host: db.host,
    port: db.port,
    user: db.username,
    password: db.password,
    connectTimeout: 5000,
  });
  try {
    await conn.query(
      `CREATE DATABASE IF NOT EXISTS ${conn.escapeId(db.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`,
    );
  } finally {
    await conn.end();
  }
}

/**
 * Opens a data source, creating its database and running pending migrations first. A named
 * lock serialises migrations when several processes start together (MySQL DDL is not transactional).
 */
export async function openDataSource(options: DataSourceOptions, db: DatabaseConfig): Promise<DataSource> {
  await ensureDatabase(db);
  const ds = await new DataSource(options).initialize();
  const runner = ds.createQueryRunner();
  try {
    await runner.query('SELECT GET_LOCK(?, 60)', [`migrations:${db.database}`]);
    await ds.runMigrations({ transaction: 'each' });
  } finally {
    await runner.query('SELECT RELEASE_LOCK(?)', [`migrations:${db.database}`]).catch(() => undefined);
    await runner.release();
  }
  return ds;
}
