import { afterAll, describe, expect, it } from 'vitest';
import { createConnection, type Connection } from 'mysql2/promise';
import { DataSource, type DataSourceOptions, type MigrationInterface, type QueryRunner } from 'typeorm';
import { loadConfig, type AppConfig, type DatabaseConfig } from '../../src/config/config.js';
import {
  logDataSourceOptions,
  mainDataSourceOptions,
  notificationDataSourceOptions,
} from '../../src/database/data-sources.js';
import { ensureDatabase, migrateDatabase } from '../../src/database/database-setup.js';
import { withMigrationLock } from '../../src/database/migration-lock.js';
import { dropLocalState } from '../support/local-state.js';
import { testEnv, uniqueName } from '../support/test-env.js';

/**
 * MySQL commits each schema statement on its own, so a process that dies, or loses its server,
 * between a migration's last statement and the row that records it leaves the migration
 * applied and unrecorded. Here every migration of the three databases is run twice in a row
 * before it is recorded, the worst such interruption: the next run must complete it and leave
 * the schema a run without interruption leaves.
 */

type Family = 'main' | 'notification' | 'log';
const families: Array<[Family, (c: AppConfig) => DataSourceOptions, (c: AppConfig) => DatabaseConfig]> = [
  ['main', (c) => mainDataSourceOptions(c), (c) => c.database],
  ['notification', notificationDataSourceOptions, (c) => c.notificationDatabase],
  ['log', logDataSourceOptions, (c) => c.logDatabase],
];

type MigrationClass = new () => MigrationInterface;

/** The migration, with its statements run twice over before the run records it. */
function runTwice(M: MigrationClass): MigrationClass {
  const once = new M();
  return class {
    name = once.name ?? M.name;
    async up(q: QueryRunner) {
      await new M().up(q);
      await new M().up(q);
    }
    down(q: QueryRunner) {
      return new M().down(q);
    }
  };
}

async function withConnection<T>(db: DatabaseConfig, work: (conn: Connection) => Promise<T>): Promise<T> {
  const conn = await createConnection({
    host: db.host,
    port: db.port,
    user: db.username,
    database: db.database,
  });
  try {
    return await work(conn);
  } finally {
    await conn.end();
  }
}

/** Every table's definition but the migration bookkeeping's. */
const schemaOf = (db: DatabaseConfig) =>
  withConnection(db, async (conn) => {
    const [tables] = await conn.query('SHOW TABLES');
    const out: Record<string, string> = {};
    for (const row of tables as Array<Record<string, string>>) {
      const table = Object.values(row)[0]!;
      if (table === 'migrations' || table === 'migration_lock') continue;
      const [[created]] = (await conn.query(`SHOW CREATE TABLE \`${table}\``)) as unknown as [
        Array<{ 'Create Table': string }>,
      ];
      out[table] = created!['Create Table'].replace(/ AUTO_INCREMENT=\d+/, '');
    }
    return out;
  });

const recorded = (db: DatabaseConfig) =>
  withConnection(db, async (conn) => {
    const [rows] = await conn.query('SELECT name FROM migrations ORDER BY id');
    return (rows as Array<{ name: string }>).map((r) => r.name);
  });

describe('migrations interrupted before they are recorded', () => {
  const plain = uniqueName();
  const twice = uniqueName();
  afterAll(async () => {
    await dropLocalState(plain).catch(() => undefined);
    await dropLocalState(twice).catch(() => undefined);
  });

  it.each(families)(
    'every %s migration applied twice over before its record: the next run completes it, records it once, and leaves the schema of an uninterrupted run',
    async (_family, optionsOf, dbOf) => {
      const plainConfig = loadConfig(testEnv(plain));
      const twiceConfig = loadConfig(testEnv(twice));
      await migrateDatabase(optionsOf(plainConfig), dbOf(plainConfig));

      const options = optionsOf(twiceConfig);
      const doubled = {
        ...options,
        migrations: (options.migrations as MigrationClass[]).map(runTwice),
      } as DataSourceOptions;
      const report = await migrateDatabase(doubled, dbOf(twiceConfig));

      const names = (options.migrations as MigrationClass[]).map((M) => new M().name ?? M.name);
      expect(report.applied).toEqual(names);
      expect(await recorded(dbOf(twiceConfig))).toEqual(names);
      expect(await schemaOf(dbOf(twiceConfig))).toEqual(await schemaOf(dbOf(plainConfig)));
    },
    120_000,
  );

  it('without that care the same run stops at the first statement applied twice (the failure it prevents)', async () => {
    const name = uniqueName();
    const config = loadConfig(testEnv(name));
    try {
      await ensureDatabase(config.logDatabase);
      const options = logDataSourceOptions(config);
      const ds = await new DataSource({
        ...options,
        migrations: (options.migrations as MigrationClass[]).map(runTwice),
      } as DataSourceOptions).initialize();
      try {
        await expect(ds.runMigrations({ transaction: 'each' })).rejects.toThrow(/already exists/);
      } finally {
        await ds.destroy();
      }
    } finally {
      await dropLocalState(name).catch(() => undefined);
    }
  });

  it('a try that failed holding the migration lock takes its own lock back on the next try; another holder finds it held', async () => {
    const name = uniqueName();
    const config = loadConfig(testEnv(name));
    await ensureDatabase(config.logDatabase);
    const ds = await new DataSource({ ...logDataSourceOptions(config), migrations: [] }).initialize();
    const runner = ds.createQueryRunner();
    try {
      const lock = 'migrations:replay-test';
      // The migration lock table, then the row a first try left when its server went away
      // before the try could delete it.
      await withMigrationLock(runner, lock, async () => undefined, 'holder-0');
      await runner.query(
        "INSERT INTO migration_lock (name, holder, heartbeat_at) VALUES (?, 'holder-1', UTC_TIMESTAMP(3))",
        [lock],
      );
      const held = await runner.query('SELECT holder FROM migration_lock WHERE name = ?', [lock]);
      expect(held).toEqual([{ holder: 'holder-1' }]);

      let ran = false;
      await withMigrationLock(runner, lock, async () => (ran = true), 'holder-1');
      expect(ran).toBe(true);
      expect(await runner.query('SELECT holder FROM migration_lock WHERE name = ?', [lock])).toEqual([]);

      // Someone else's fresh row is not taken: the lock is still held 2 s later.
      await runner.query(
        "INSERT INTO migration_lock (name, holder, heartbeat_at) VALUES (?, 'holder-2', UTC_TIMESTAMP(3))",
        [lock],
      );
      const other = withMigrationLock(runner, lock, async () => 'ran', 'holder-3');
      const outcome = await Promise.race([other, new Promise((r) => setTimeout(() => r('waiting'), 2000))]);
      expect(outcome).toBe('waiting');
      await runner.query("DELETE FROM migration_lock WHERE holder = 'holder-2'");
      expect(await other).toBe('ran');
    } finally {
      await runner.release();
      await ds.destroy();
      await dropLocalState(name).catch(() => undefined);
    }
  }, 30_000);
});
