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
