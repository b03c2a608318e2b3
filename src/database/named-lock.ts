import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Holds a MySQL named lock on a connection of its own while `work` runs, so one process does
 * it at a time whichever machine it runs on; undefined when another process still holds the
 * lock after `waitSeconds`. GET_LOCK holds on one server: on a Galera cluster, processes must
 * reach the same node (as its documentation says for the retention lock).
 */
export async function withNamedLock<T>(
  ds: DataSource,
  name: string,
  work: () => Promise<T>,
  waitSeconds = 0,
): Promise<T | undefined> {
  const runner: QueryRunner = ds.createQueryRunner();
  await runner.connect();
  try {
    const [{ got }] = (await runner.query('SELECT GET_LOCK(?, ?) AS got', [name, waitSeconds])) as Array<{
      got: number | string | null;
    }>;
    if (Number(got) !== 1) return undefined;
    try {
      return await work();
    } finally {
      await runner.query('SELECT RELEASE_LOCK(?)', [name]).catch(() => undefined);
    }
  } finally {
    await runner.release();
  }
}

/**
 * The lock of everything that removes message rows or reshapes their tables (prunes, archive
 * rewrites, partition changes): one per main database, so separate installations on one
 * server do not wait for each other.
 */
export const retentionLockName = (ds: DataSource): string => `retention:${String(ds.options.database)}`;
