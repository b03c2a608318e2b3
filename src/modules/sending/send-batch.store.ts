import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import { countConflictRetry, isWriteConflict } from '../../database/conflict-retry.js';
import { together, type Statement } from '../../database/statement.js';

/** The driver's answer to one statement of a multi-statement query (a write's count of changed rows). */
export interface StatementResult {
  affectedRows?: number;
}

const BEGIN: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };

/**
 * A batch of sends in one transaction and two round trips: START TRANSACTION and every
 * statement in one multi-statement query, then COMMIT. The statements are built by the modules
 * that own their tables (messages, idempotency, balance); this store runs them on one connection.
 */
@Injectable()
export class SendBatchStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Runs the statements in one transaction and commits it once `check` has accepted their
   * results (one per statement, in order). When `check` throws, or a statement fails, rolls
   * back and throws; throws too when the COMMIT did not go through (or its connection was lost).
   * `after`: reads sent with the COMMIT, in its round trip, so each sees the transaction
   * committed; answers their rows, in order (none when there are none).
   */
  async commitIf(
    statements: Statement[],
    check: (results: StatementResult[]) => void,
    after: Statement[] = [],
  ): Promise<unknown[][]> {
    const all = together([BEGIN, ...statements]);
    const runner = this.ds.createQueryRunner();
    let atCommit = false;
    try {
      const results = (await runner.query(all.sql, all.params)) as StatementResult[];
      check(results.slice(1));
      atCommit = true;
      if (after.length === 0) {
        await runner.query('COMMIT');
        return [];
      }
      const commit = together([COMMIT, ...after]);
      return ((await runner.query(commit.sql, commit.params)) as unknown[][]).slice(1);
    } catch (err) {
      await runner.query('ROLLBACK').catch(() => undefined);
      // The caller writes the sends again, one by one: count a conflict as the retry it is.
      if (isWriteConflict(err)) countConflictRetry(err, atCommit);
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
