import type { Probed } from './message-probes.js';

/** What a verification left in the verifications table (the code only as its digest). */
export async function verificationRow(
  t: Probed,
  verificationId: string,
): Promise<Record<string, any> | undefined> {
  const [row] = (await t.ds.query('SELECT * FROM verifications WHERE id = ?', [verificationId])) as Array<
    Record<string, any>
  >;
  return row;
}

/** How many verifications an account has to one recipient, and how many of them are pending. */
export async function verificationsTo(
  t: Probed,
  accountId: string,
  recipient: string,
): Promise<{ all: number; pending: number }> {
  const [row] = (await t.ds.query(
    `SELECT COUNT(*) AS n, COALESCE(SUM(status = 'pending'), 0) AS p FROM verifications WHERE account_id = ? AND recipient = ?`,
    [accountId, recipient],
  )) as Array<{ n: number | string; p: number | string }>;
  return { all: Number(row?.n ?? 0), pending: Number(row?.p ?? 0) };
}

/**
 * Every row of every table of the three databases, as JSON text (binary columns as hex), for a
 * spec that proves a value is stored nowhere. The suite's databases are its own, so whole
 * tables are small.
 */
export async function everyStoredRow(t: Probed): Promise<string> {
  const out: string[] = [];
  for (const db of [t.name, `${t.name}_log`, `${t.name}_notification`]) {
    const tables = (await t.ds.query(
      'SELECT table_name AS name FROM information_schema.tables WHERE table_schema = ?',
      [db],
    )) as Array<{ name: string }>;
    for (const { name } of tables) {
      const rows = (await t.ds.query(`SELECT * FROM \`${db}\`.\`${name}\``)) as unknown[];
      out.push(
        JSON.stringify(rows, (_, v: unknown) =>
          v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer'
            ? Buffer.from((v as { data: number[] }).data).toString('hex')
            : v,
        ),
      );
    }
  }
  return out.join('\n');
}
