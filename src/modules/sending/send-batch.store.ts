import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { countConflictRetry, isWriteConflict } from '../../database/conflict-retry.js';
import { together, type Statement } from '../../database/statement.js';

/** A statement of a batch; `oneRow`: it must change exactly one row, or nothing of the batch is committed. */
export interface BatchStatement extends Statement {
  oneRow?: boolean;
}

const BEGIN: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };
/**
 * Stops the query at the statement before it unless that statement changed one row: the
 * SIGNAL fails the query there, so the statements after it, COMMIT included, never run.
 */
const ONE_ROW: Statement = {
  sql: `BEGIN NOT ATOMIC IF ROW_COUNT() <> 1 THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'a batch statement did not change its one row'; END IF; END`,
  params: [],
};

/**
 * A batch of sends in one transaction and one round trip: START TRANSACTION, every statement,
 * a guard after each that must change one row, and COMMIT, in one multi-statement query. The
 * statements are built by the modules that own their tables (messages, idempotency, balance);
 * this store runs them on one connection.
 */
@Injectable()
export class SendBatchStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Runs the statements in one transaction and commits it, all in one round trip, unless a
   * statement fails or one marked `oneRow` did not change exactly one row: then nothing is
   * committed (rolled back) and it throws. It throws too when the answer did not come back (the
   * connection lost): the transaction may then have committed or not. `after`: reads sent after
   * the COMMIT in the same query, so each sees the transaction committed; answers their rows, in
   * order (none when there are none).
   */
  async commitAtOnce(statements: BatchStatement[], after: Statement[] = []): Promise<unknown[][]> {
    const all: Statement[] = [BEGIN];
    for (const s of statements) {
      all.push(s);
      if (s.oneRow) all.push(ONE_ROW);
    }
    all.push(COMMIT, ...after);
    const query = together(all);
    const runner = this.ds.createQueryRunner();
    try {
      const results = (await runner.query(query.sql, query.params)) as unknown[][];
      return after.length === 0 ? [] : results.slice(all.length - after.length);
    } catch (err) {
      // A failed statement leaves the transaction open on this connection.
      await runner.query('ROLLBACK').catch(() => undefined);
      // The caller writes the sends again, one by one: count a conflict as the retry it is.
      if (isWriteConflict(err)) countConflictRetry(err);
      throw err;
    } finally {
      await runner.release();
    }
  }

  /** Runs the statements one by one in the caller's transaction (a request written alone). */
  async runEach(em: EntityManager, statements: Statement[]): Promise<void> {
    for (const s of statements) await em.query(s.sql, s.params);
  }
}
