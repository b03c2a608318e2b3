import type { Probed } from './message-probes.js';

/** Named reads and time moves of short_links, for specs of either tier. */

export interface LinkRow {
  code: string;
  message_id: string;
  url: string;
  clicks: number;
  previews: number;
  first_click_at: Date | null;
  last_click_at: Date | null;
}

/** One link's row as stored; undefined when there is none. */
export async function linkRow(t: Probed, code: string): Promise<LinkRow | undefined> {
  const rows = (await t.ds.query(
    'SELECT code, message_id, url, clicks, previews, first_click_at, last_click_at FROM short_links WHERE code = ?',
    [code],
  )) as LinkRow[];
  return rows[0] ? { ...rows[0], message_id: String(rows[0].message_id) } : undefined;
}

/** The links of a request's messages, by recipient and then text order. */
export async function linksOfRequest(
  t: Probed,
  sendRequestId: string,
): Promise<Array<{ recipient: string; code: string; url: string; body: string | null }>> {
  return (await t.ds.query(
    `SELECT m.recipient, l.code, l.url, m.body FROM short_links l JOIN messages m ON m.id = l.message_id
      WHERE m.send_request_id = ? ORDER BY m.recipient, l.position`,
    [sendRequestId],
  )) as Array<{ recipient: string; code: string; url: string; body: string | null }>;
}

/** A link was made `days` ago (past LINK_RETENTION_DAYS, it has expired). */
export async function ageShortLink(t: Probed, code: string, days: number): Promise<void> {
  await t.ds.query('UPDATE short_links SET created_at = created_at - INTERVAL ? DAY WHERE code = ?', [
    days,
    code,
  ]);
}
