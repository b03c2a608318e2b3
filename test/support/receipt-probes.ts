import { countOf, type Probed } from './message-probes.js';

/** Named reads of message parts and stored delivery reports (the notification database), for e2e specs. */

const reports = (t: Probed) => `\`${t.name}_notification\`.delivery_reports`;

/** Every provider message id stored for a part, in order. */
export async function storedProviderIds(t: Probed): Promise<string[]> {
  const rows = (await t.ds.query(
    'SELECT provider_message_id FROM message_parts ORDER BY provider_message_id',
  )) as Array<{ provider_message_id: string }>;
  return rows.map((r) => r.provider_message_id);
}

export interface PartRow {
  part: number;
  provider_message_id: string;
  status: string | null;
}

/** One message's parts, in part order. */
export async function partsOf(t: Probed, messageId: string): Promise<PartRow[]> {
  return (await t.ds.query(
    'SELECT part, provider_message_id, status FROM message_parts WHERE message_id = ? ORDER BY part',
    [messageId],
  )) as PartRow[];
}

export interface ReportRow {
  connector: string | null;
  provider_message_id: string;
  status: string;
  /** The message it was matched to, as a string; null while unmatched. */
  message_id: string | null;
  applied_at: Date | null;
  expired_at: Date | null;
}

/** Stored delivery reports with a provider id, or from connectors whose name starts with a prefix; by connector, then id. */
export async function deliveryReports(
  t: Probed,
  which: { providerMessageId: string } | { connectorPrefix: string },
): Promise<ReportRow[]> {
  const rows = (await t.ds.query(
    'providerMessageId' in which
      ? `SELECT * FROM ${reports(t)} WHERE provider_message_id = ? ORDER BY connector, id`
      : `SELECT * FROM ${reports(t)} WHERE connector LIKE ? ORDER BY connector, id`,
    ['providerMessageId' in which ? which.providerMessageId : `${which.connectorPrefix}%`],
  )) as Array<Record<string, any>>;
  return rows.map((r) => ({
    connector: r.connector,
    provider_message_id: r.provider_message_id,
    status: r.status,
    message_id: r.message_id == null ? null : String(r.message_id),
    applied_at: r.applied_at,
    expired_at: r.expired_at,
  }));
}

/** How many stored reports for a message (or still unmatched to any, with null) wait unapplied. */
export async function unappliedReportsOf(t: Probed, messageId: string | null): Promise<number> {
  return countOf(t, `SELECT COUNT(*) AS n FROM ${reports(t)} WHERE message_id <=> ? AND applied_at IS NULL`, [
    messageId,
  ]);
}

/** How many distinct provider ids have an applied report. */
export async function appliedReceiptCount(t: Probed): Promise<number> {
  return countOf(
    t,
    `SELECT COUNT(DISTINCT provider_message_id) AS n FROM ${reports(t)} WHERE applied_at IS NOT NULL`,
  );
}

/**
 * How many stored reports of these requests' messages were applied in the statement that stored
 * them (applied_at equal to received_at), rather than stored unmatched and applied afterwards.
 */
export async function reportsAppliedOnArrival(t: Probed, sendRequestIds: string[]): Promise<number> {
  return countOf(
    t,
    `SELECT COUNT(*) AS n FROM ${reports(t)} r JOIN messages m ON m.id = r.message_id
      WHERE m.send_request_id IN (?) AND r.applied_at = r.received_at`,
    [sendRequestIds],
  );
}

/** How many stored reports carry a status. */
export async function reportsWithStatus(t: Probed, status: string): Promise<number> {
  return countOf(t, `SELECT COUNT(*) AS n FROM ${reports(t)} WHERE status = ?`, [status]);
}

/**
 * Puts a delivered message back in the state a worker stopped between recording SENT and
 * applying an early receipt leaves behind: SENT, its parts unreported, its receipt stored ten
 * seconds ago and neither matched nor applied.
 */
export async function strandReceipt(t: Probed, messageId: string): Promise<void> {
  await t.ds.query("UPDATE messages SET status = 'SENT', completed_at = NULL WHERE id = ?", [messageId]);
  await t.ds.query(
    'UPDATE message_parts SET status = NULL, reason = NULL, reported_at = NULL WHERE message_id = ?',
    [messageId],
  );
  const [{ provider_message_id: providerId }] = await partsOf(t, messageId);
  await t.ds.query(
    `UPDATE ${reports(t)} SET applied_at = NULL, message_id = NULL,
       received_at = CURRENT_TIMESTAMP(3) - INTERVAL 10 SECOND WHERE message_id = ? OR provider_message_id = ?`,
    [messageId, providerId],
  );
}

export interface MessagePartRow {
  id: string;
  recipient: string;
  status: string;
  connector: string | null;
  /** Null for a message with no part recorded yet. */
  provider_message_id: string | null;
}

/** A request's messages, one row per part (one row with no part while none is recorded), in id then part order. */
export async function messagesWithParts(t: Probed, sendRequestId: string): Promise<MessagePartRow[]> {
  return (await t.ds.query(
    `SELECT m.id, m.recipient, m.status, m.connector, p.provider_message_id FROM messages m
       LEFT JOIN message_parts p ON p.message_id = m.id WHERE m.send_request_id = ? ORDER BY m.id, p.part`,
    [sendRequestId],
  )) as MessagePartRow[];
}
