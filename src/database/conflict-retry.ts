import type { DataSource, EntityManager } from 'typeorm';
import { haEvents } from '../platform/ha/ha-events.js';

/** MySQL's deadlock error; Galera reports a certification failure (a conflict with another node's commit) with it too. */
const ER_LOCK_DEADLOCK = 1213;
/** Tries of one transaction that meets deadlocks: the first and two more. */
const CONFLICT_TRIES = 3;

/** A MySQL error's number, whether the driver's error or TypeORM's wrapping of it. */
export const errnoOf = (err: unknown): number | undefined => {
  const e = err as { errno?: number; driverError?: { errno?: number } } | null;
  return e?.errno ?? e?.driverError?.errno;
};

/** A transaction rolled back whole by a deadlock or a Galera certification failure: safe to run again. */
export function isWriteConflict(err: unknown): boolean {
  return errnoOf(err) === ER_LOCK_DEADLOCK;
}

/**
 * A deadlock error at COMMIT is a Galera certification failure: InnoDB finds its deadlocks
 * while statements wait for locks, never at COMMIT. Some Galera versions also name themselves
 * in the message ("WSREP detected deadlock/conflict").
 */
export function isCertificationFailure(err: unknown, atCommit = false): boolean {
  return isWriteConflict(err) && (atCommit || /WSREP/i.test((err as Error).message ?? ''));
}

/** Counts a write conflict that is about to be tried again (bulk_db_transaction_retries_total). */
export function countConflictRetry(err: unknown, atCommit = false): void {
  haEvents.transactionRetries++;
  if (isCertificationFailure(err, atCommit)) haEvents.certificationRetries++;
}

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, 5 * attempt * (0.5 + Math.random())));

/**
 * Runs `run` again while it fails with an error `when` accepts, up to `tries` in all, pausing a
 * little longer before each try (`pauseMs` times the try's number, jittered); `onRetry` hears each
 * error that is about to be tried again. Any other error, or the last try's, is thrown.
 */
export async function retryOn<T>(
  run: () => Promise<T>,
  o: { when: (err: unknown) => boolean; tries: number; pauseMs: number; onRetry?: (err: unknown) => void },
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= o.tries || !o.when(err)) throw err;
      o.onRetry?.(err);
      await new Promise((r) => setTimeout(r, o.pauseMs * attempt * (0.5 + Math.random())));
    }
  }
}

/**
 * Runs one autocommitted statement (or other work that a deadlock rolls back whole), again when
 * a deadlock rolled it back, up to `tries` in all; counted as a transaction's retries are.
 */
export function againOnWriteConflict<T>(run: () => Promise<T>, tries = CONFLICT_TRIES): Promise<T> {
  return retryOn(run, {
    when: isWriteConflict,
    tries,
    pauseMs: 5,
    onRetry: (err) => countConflictRetry(err),
  });
}

/**
 * Makes every `transaction()` of the data source (and of its manager) run its work again when
 * the transaction was rolled back by a deadlock, which is how Galera reports a certification
 * failure at COMMIT when another node committed a conflicting write first. Such a transaction
 * left nothing behind, so running it again is safe; the work functions only write through the
 * transaction's manager. Lock wait timeouts are not retried here: each has already waited
 * innodb_lock_wait_timeout, and the callers that expect them retry them themselves.
 */
export function retryWriteConflicts(ds: DataSource): DataSource {
  const manager = ds.manager;
  const once = manager.transaction.bind(manager) as (...args: unknown[]) => Promise<unknown>;
  const retrying = async (...args: unknown[]): Promise<unknown> => {
    // transaction(work) or transaction(isolationLevel, work)
    const at = typeof args[0] === 'function' ? 0 : 1;
    const work = args[at] as (em: EntityManager) => Promise<unknown>;
    for (let attempt = 1; ; attempt++) {
      // Whether the work was done when the error came: then it came at COMMIT.
      let worked = false;
      const tracked = args.slice();
      tracked[at] = async (em: EntityManager) => {
        const result = await work(em);
        worked = true;
        return result;
      };
      try {
        return await once(...tracked);
      } catch (err) {
        if (attempt >= CONFLICT_TRIES || !isWriteConflict(err)) throw err;
        countConflictRetry(err, worked);
        await pause(attempt);
      }
    }
  };
  manager.transaction = retrying as EntityManager['transaction'];
  return ds;
}
