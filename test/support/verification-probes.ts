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
