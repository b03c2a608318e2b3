import { createConnection, type Connection } from 'mysql2/promise';
import type { DataSourceOptions } from 'typeorm';
import { loadConfig, type DatabaseConfig } from '../../src/config/config.js';
import {
  logDataSourceOptions,
  mainDataSourceOptions,
  notificationDataSourceOptions,
} from '../../src/database/data-sources.js';
import { migrateDatabase } from '../../src/database/database-setup.js';

/**
 * Migrating three databases costs several seconds per suite, most of it DDL the server
 * serialises. The run migrates one set of template databases once (global setup); a suite's
 * databases are copies of it, table for table, rows included, so the migrations table
 * tells the app it is up to date and it applies nothing at start. The start-up and
 * `db migrate` suites still create and migrate from nothing.
 */

export const TEMPLATE_SERVER = { host: '127.0.0.1', port: 3306, user: 'root' };
const SUFFIXES = ['', '_log', '_notification'];

function serverUrl(): string {
  return `mysql://${TEMPLATE_SERVER.user}@${TEMPLATE_SERVER.host}:${TEMPLATE_SERVER.port}`;
}

/** Creates and migrates the template databases named after `name` (global setup). */
export async function createTemplate(name: string): Promise<void> {
  const config = loadConfig({ DATABASE_URL: `${serverUrl()}/${name}`, APP_ENV: 'test', LOG_LEVEL: 'silent' });
  const sets: Array<[DataSourceOptions, DatabaseConfig]> = [
    [mainDataSourceOptions(config), config.database],
    [logDataSourceOptions(config), config.logDatabase],
    [notificationDataSourceOptions(config), config.notificationDatabase],
  ];
  // One after the other: the three share the server and run DDL.
  for (const [options, db] of sets) await migrateDatabase(options, db);
}

export async function dropTemplate(name: string): Promise<void> {
  const conn = await createConnection(TEMPLATE_SERVER);
  try {
    for (const suffix of SUFFIXES)
      await conn.query(`DROP DATABASE IF EXISTS ${conn.escapeId(name + suffix)}`);
  } finally {
    await conn.end();
  }
}

function onTemplateServer(db: DatabaseConfig): boolean {
  return (
    (db.host === TEMPLATE_SERVER.host || db.host === 'localhost') &&
    db.port === TEMPLATE_SERVER.port &&
    db.username === TEMPLATE_SERVER.user
  );
}

async function copyDatabase(conn: Connection, from: string, to: string): Promise<void> {
  try {
    await conn.query(`CREATE DATABASE ${conn.escapeId(to)} CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } catch (err) {
    // Already there (a suite that starts a second app on the same databases): leave it as it is.
    if ((err as { code?: string }).code === 'ER_DB_CREATE_EXISTS') return;
    throw err;
  }
  const [tables] = await conn.query(
    "SELECT TABLE_NAME AS t FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
    [from],
  );
  await conn.query(`USE ${conn.escapeId(to)}`);
  // SHOW CREATE TABLE keeps foreign keys (CREATE TABLE ... LIKE would drop them); they name
  // tables without a schema, so they point into the copy. Checks are off so order does not matter.
  await conn.query('SET FOREIGN_KEY_CHECKS = 0');
  for (const { t } of tables as Array<{ t: string }>) {
    const [rows] = await conn.query(`SHOW CREATE TABLE ${conn.escapeId(from)}.${conn.escapeId(t)}`);
    await conn.query((rows as Array<Record<string, string>>)[0]['Create Table']);
    await conn.query(
      `INSERT INTO ${conn.escapeId(to)}.${conn.escapeId(t)} SELECT * FROM ${conn.escapeId(from)}.${conn.escapeId(t)}`,
    );
  }
}

/**
 * Gives a suite's databases their migrated schema by copying the template, for those of the
 * three that live on the template's server. Others (a suite's own MariaDB) migrate at start.
 */
export async function copyTemplate(template: string, dbs: DatabaseConfig[]): Promise<void> {
  const mine = dbs
    .map((db, i) => ({ db, from: template + SUFFIXES[i] }))
    .filter((d) => onTemplateServer(d.db));
  if (mine.length === 0) return;
  const conn = await createConnection(TEMPLATE_SERVER);
  try {
    for (const { db, from } of mine) await copyDatabase(conn, from, db.database);
  } finally {
    await conn.end();
  }
}
