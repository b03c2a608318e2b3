import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';

/** A part of a message as handed over: the provider's id for it, and its numeric key when it has one. */
export interface NewPartRow {
  messageId: string;
  part: number;
  providerMessageId: string;
  idValue: string | null;
}

export interface PartRow {
  message_id: string;
  part: number;
  provider_message_id: string;
  /** The SMPP connector its message went out on (messages.connector); null when none was recorded. */
  connector?: string | null;
  /** How many parts its message was handed over in. */
  parts?: number | string;
}

/** One part's reported outcome. */
export interface PartOutcome {
  messageId: string;
  part: number;
  reason: string | null;
}

/**
 * Every statement on message_parts, the provider ids of each message's parts and what the
 * provider reported for each. Part of the message tables, written beside them.
 */
@Injectable()
export class MessagePartsStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /** Records the parts of messages handed over, in the caller's transaction; a resend replaces a part's earlier id. */
  async storeParts(em: DataSource | EntityManager, rows: NewPartRow[]): Promise<void> {
    if (rows.length === 0) return;
    await em.query(
      `INSERT INTO message_parts (message_id, part, provider_message_id, id_value) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(',')}
        ON DUPLICATE KEY UPDATE provider_message_id = VALUES(provider_message_id), id_value = VALUES(id_value)`,
      rows.flatMap((r) => [r.messageId, r.part, r.providerMessageId, r.idValue]),
    );
  }

  /**
   * Parts whose provider id is one of `providerIds` or whose numeric key is one of `idValues`, with
   * their message's connector and number of parts. Given `connectors` (every receipt looked up names one), only parts
   * of messages sent over one of them or over none recorded.
   */
  async findCandidates(providerIds: string[], idValues: string[], connectors?: string[]): Promise<PartRow[]> {
    if (providerIds.length === 0) return [];
    const within = connectors?.length ? connectors : null;
    // '' is never an id_value (digits or NULL): it stands for "no numeric key to look up".
    // Without connectors the first term is true (NULL IS NULL) and the IN list is never read.
    return (await this.ds.query(
      `SELECT p.message_id, p.part, p.provider_message_id, m.connector,
              (SELECT COUNT(*) FROM message_parts c WHERE c.message_id = p.message_id) AS parts
         FROM message_parts p
         LEFT JOIN messages m ON m.id = p.message_id
        WHERE (p.provider_message_id IN (?) OR p.id_value IN (?))
          AND (? IS NULL OR m.connector IS NULL OR m.connector IN (?))`,
      [providerIds, idValues.length ? idValues : [''], within && 1, within ?? ['']],
    )) as PartRow[];
  }

  /**
   * Records one reported state for the given parts (give them in id order, so two batches lock
   * in the same order). The first report of a part counts: reason and reported_at are set only
   * while status is still empty (MySQL assigns left to right). In `em`'s transaction when given.
   */
  async recordOutcomes(
    state: string,
    parts: PartOutcome[],
    em: DataSource | EntityManager = this.ds,
  ): Promise<void> {
    if (parts.length === 0) return;
    // One reason for all where they agree (a batch of DELIVRD receipts has none): a CASE of a
    // batch's parts is parsed and searched for each of its rows.
    const same = parts.every((p) => (p.reason ?? null) === (parts[0].reason ?? null));
    const params: unknown[] = [];
    // Ids go over as text: in a row comparison MariaDB compares text with BIGINT as doubles, which
    // cannot tell consecutive 19-digit ids apart, hence the casts.
    const reason = same
      ? (params.push(parts[0].reason ?? null), '?')
      : `CASE ${parts
          .map(
            (p) => (
              params.push(p.messageId, p.part, p.reason),
              'WHEN message_id = CAST(? AS UNSIGNED) AND part = ? THEN ?'
            ),
          )
          .join(' ')} END`;
    await em.query(
      `UPDATE message_parts SET reason = IF(status IS NULL, ${reason}, reason), reported_at = IF(status IS NULL, CURRENT_TIMESTAMP(3), reported_at),
              status = COALESCE(status, ?)
        WHERE (message_id, part) IN (${parts.map(() => '(CAST(? AS UNSIGNED), ?)').join(',')})`,
      [...params, state, ...parts.flatMap((p) => [p.messageId, p.part])],
    );
  }

  /** The reported state of every part of the given messages, by message and part. */
  async partStates(
    messageIds: string[],
  ): Promise<Array<{ message_id: string; status: string | null; reason: string | null }>> {
    if (messageIds.length === 0) return [];
    return (await this.ds.query(
      'SELECT message_id, status, reason FROM message_parts WHERE message_id IN (?) ORDER BY message_id, part',
      [messageIds],
    )) as Array<{ message_id: string; status: string | null; reason: string | null }>;
  }
}
