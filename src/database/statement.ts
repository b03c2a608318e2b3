import type { DataSource } from 'typeorm';

/**
 * One SQL statement with its `?` parameters, built by the store that owns the table and run
 * by whoever holds the connection: alone (`em.query(s.sql, s.params)`), or together with others
 * in one round trip (`together`).
 */
export interface Statement {
  sql: string;
  params: unknown[];
}

/**
 * Several statements as one query text and one parameter list, for a connection that allows
 * multiple statements: the driver answers with one result per statement, in order. The text is
 * only the statements' own, each built from constants and placeholders.
 */
export function together(statements: Statement[]): Statement {
  const params: unknown[] = [];
  // A plain loop rather than flatMap: this runs on every batch's few hundred parameters.
  for (const s of statements) for (const p of s.params) params.push(p);
  return { sql: statements.map((s) => s.sql).join(';\n'), params };
}

const BEGIN: Statement = { sql: 'START TRANSACTION', params: [] };
const COMMIT: Statement = { sql: 'COMMIT', params: [] };

/**
 * The statements in one transaction and one round trip: START TRANSACTION, each of them and
 * COMMIT as one multi-statement query. Answers each statement's result, in order (a write's
 * counts, a read's rows). When one fails, those after it are not run: the transaction is rolled
 * back before its connection goes back to the pool, and the error thrown.
 */
export async function inOneTrip(ds: DataSource, statements: Statement[]): Promise<unknown[]> {
  const all = together([BEGIN, ...statements, COMMIT]);
  const runner = ds.createQueryRunner();
  try {
    const results = (await runner.query(all.sql, all.params)) as unknown[];
    return results.slice(1, -1);
  } catch (err) {
    await runner.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    await runner.release();
  }
}
