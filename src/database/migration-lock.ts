import { randomUUID } from 'node:crypto';
import type { QueryRunner } from 'typeorm';
import { PeriodicTask } from '../platform/periodic/periodic-task.js';
import { errnoOf } from './conflict-retry.js';

/** How often the holder shows it is alive, and after how long without a sign a waiter takes the lock over. */
const HEARTBEAT_MS = 5000;
const STALE_SECONDS = 30;
/** How long a process waits for another's migrations before it gives up starting. */
const WAIT_MS = 10 * 60_000;

const ER_DUP_ENTRY = 1062;
const ER_LOCK_DEADLOCK = 1213;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The lock that lets one process at a time migrate a database, whichever server of a cluster
 * each process reaches. MySQL's GET_LOCK holds on one server only: two processes connected to
 * two Galera nodes would both get it and run the same DDL ("Duplicate column name"). This one
 * is a row, and a row is what Galera keeps the same on every node: two INSERTs of it on two
 * nodes cannot both commit (the second finds the row, or fails certification at COMMIT with a
 * deadlock error). The holder deletes the row when done; it refreshes `heartbeat_at` while it
 * works, so a waiter can take over the lock of a holder that died (no sign for 30 s). Its
 * table is created here, not by a migration: it guards the migrations (as TypeORM's own
 * `migrations` table is also made outside them). On a single server it works the same way.
 *
 * Each Galera node applies replicated writes in commit order, so a waiter whose INSERT
 * succeeds has the holder's DELETE applied, and before it every migration the holder ran
 * (DDL runs on all nodes at the same point of that order).
 */
export async function withMigrationLock<T>(
  runner: QueryRunner,
  name: string,
  work: () => Promise<T>,
  holder: string = randomUUID(),
): Promise<T> {
  await runner.query(
    `CREATE TABLE IF NOT EXISTS migration_lock (
       name VARCHAR(191) NOT NULL PRIMARY KEY,
       holder CHAR(36) NOT NULL,
       heartbeat_at DATETIME(3) NOT NULL
     ) ENGINE=InnoDB`,
  );
  await acquire(runner, name, holder);
  // A missed beat is not reported: the next one, or the migration's own queries, will fail alike.
  const heartbeat = new PeriodicTask({
    run: () =>
      runner
        .query('UPDATE migration_lock SET heartbeat_at = UTC_TIMESTAMP(3) WHERE name = ? AND holder = ?', [
          name,
          holder,
        ])
        .catch(() => undefined),
    everyMs: HEARTBEAT_MS,
    logger: { warn: () => undefined },
    failure: 'migration lock heartbeat failed',
  });
  heartbeat.start();
  try {
    return await work();
  } finally {
    await heartbeat.stop();
    await runner
      .query('DELETE FROM migration_lock WHERE name = ? AND holder = ?', [name, holder])
      .catch(() => undefined);
  }
}

async function acquire(runner: QueryRunner, name: string, holder: string): Promise<void> {
  // The row may be this holder's own, left by a try that failed before it could delete it (its
  // server went away mid-migration): a try again takes it back instead of waiting it out.
  const mine = (await runner.query(
    'UPDATE migration_lock SET heartbeat_at = UTC_TIMESTAMP(3) WHERE name = ? AND holder = ?',
    [name, holder],
  )) as { affectedRows?: number };
  if (mine.affectedRows === 1) return;
  const until = Date.now() + WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      await runner.query(
        'INSERT INTO migration_lock (name, holder, heartbeat_at) VALUES (?, ?, UTC_TIMESTAMP(3))',
        [name, holder],
      );
      return;
    } catch (err) {
      const errno = errnoOf(err);
      if (errno !== ER_DUP_ENTRY && errno !== ER_LOCK_DEADLOCK) throw err;
    }
    if (Date.now() > until)
      throw new Error(
        `another process has held the migration lock of ${name} for over ${WAIT_MS / 60_000} minutes`,
      );
    // A holder that stopped refreshing its row died mid-way: its lock is taken over (its DDL
    // may be half done; the next migrations run from what the migrations table records).
    await runner
      .query(
        `DELETE FROM migration_lock WHERE name = ? AND heartbeat_at < UTC_TIMESTAMP(3) - INTERVAL ${STALE_SECONDS} SECOND`,
        [name],
      )
      .catch(() => undefined);
    await sleep(Math.min(100 + attempt * 50, 1000) * (0.5 + Math.random()));
  }
}
