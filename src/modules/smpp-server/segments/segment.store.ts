import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Which text a part belongs to: one credential's reference between one sender and one recipient. */
export interface SegmentGroup {
  credentialId: number;
  source: string;
  destination: string;
  ref: number;
  total: number;
}

export interface NewSegment extends SegmentGroup {
  id: string;
  seqnum: number;
  registeredDelivery: number;
  text: string;
  /** What the part's submit_sm asked for (schedule_delivery_time, validity_period); null: none. */
  sendAt: Date | null;
  validityPeriod: number | null;
}

/** A part as stored: the message_id its submit_sm_resp gave, and the one message made of its text. */
export interface SegmentRow extends NewSegment {
  state: 'waiting' | 'stored' | 'incomplete' | 'refused';
  messageId: string | null;
  createdAt: Date;
}

interface Raw {
  id: string;
  credential_id: number;
  source: string;
  destination: string;
  ref: number;
  total: number;
  seqnum: number;
  registered_delivery: number;
  text: string;
  state: SegmentRow['state'];
  message_id: string | null;
  created_at: Date;
  send_at: Date | null;
  validity_period: number | null;
}

const row = (r: Raw): SegmentRow => ({
  id: String(r.id),
  credentialId: Number(r.credential_id),
  source: r.source,
  destination: r.destination,
  ref: Number(r.ref),
  total: Number(r.total),
  seqnum: Number(r.seqnum),
  registeredDelivery: Number(r.registered_delivery),
  text: r.text,
  state: r.state,
  messageId: r.message_id === null ? null : String(r.message_id),
  createdAt: r.created_at,
  sendAt: r.send_at,
  validityPeriod: r.validity_period === null ? null : Number(r.validity_period),
});

const GROUP = 'credential_id = ? AND source = ? AND destination = ? AND ref = ? AND total = ?';
const groupParams = (g: SegmentGroup) => [g.credentialId, g.source, g.destination, g.ref, g.total];

/** Every statement on smpp_segments. */
@Injectable()
export class SegmentStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  /**
   * Keeps the part; when the same part of the same open text is already kept (a client that
   * sends it again, its answer lost), answers that one's id instead.
   */
  async insert(s: NewSegment): Promise<string> {
    await this.ds.query(
      `INSERT IGNORE INTO smpp_segments (id, credential_id, source, destination, ref, total, seqnum, registered_delivery, text, send_at, validity_period)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [s.id, ...groupParams(s), s.seqnum, s.registeredDelivery, s.text, s.sendAt, s.validityPeriod],
    );
    const found = (await this.ds.query(
      `SELECT id FROM smpp_segments WHERE ${GROUP} AND seqnum = ? AND open = 1`,
      [...groupParams(s), s.seqnum],
    )) as Array<{ id: string }>;
    return found[0] ? String(found[0].id) : s.id;
  }

  /** The parts of the open text, in order. */
  async openParts(g: SegmentGroup): Promise<SegmentRow[]> {
    const rows = (await this.ds.query(
      `SELECT * FROM smpp_segments WHERE ${GROUP} AND open = 1 ORDER BY seqnum`,
      groupParams(g),
    )) as Raw[];
    return rows.map(row);
  }

  /**
   * Closes the open text; false when another process closed it first. The UPDATE changes `open`,
   * a column of the parts' unique key, so two closes of one text at once can deadlock on that
   * index; it runs as a transaction, which the data source runs again after a deadlock (the
   * second run finds the text closed and answers false).
   */
  async close(
    g: SegmentGroup,
    state: 'stored' | 'incomplete' | 'refused',
    messageId: string | null,
  ): Promise<boolean> {
    const res = (await this.ds.transaction((em) =>
      em.query(
        `UPDATE smpp_segments SET open = NULL, state = ?, message_id = ? WHERE ${GROUP} AND open = 1`,
        [state, messageId, ...groupParams(g)],
      ),
    )) as { affectedRows: number };
    return res.affectedRows > 0;
  }

  /** Open texts whose first part came before `before`, with how many parts they have. */
  async openGroups(before: Date, limit: number): Promise<Array<SegmentGroup & { parts: number }>> {
    const rows = (await this.ds.query(
      `SELECT credential_id, source, destination, ref, total, COUNT(*) AS parts
         FROM smpp_segments WHERE open = 1
        GROUP BY credential_id, source, destination, ref, total
       HAVING MIN(created_at) < ? LIMIT ?`,
      [before, limit],
    )) as Array<Raw & { parts: number }>;
    return rows.map((r) => ({
      credentialId: Number(r.credential_id),
      source: r.source,
      destination: r.destination,
      ref: Number(r.ref),
      total: Number(r.total),
      parts: Number(r.parts),
    }));
  }

  /** The parts a stored message was made of (the ids its client got for them). */
  async partsOfMessage(messageId: string): Promise<SegmentRow[]> {
    const rows = (await this.ds.query('SELECT * FROM smpp_segments WHERE message_id = ? ORDER BY seqnum', [
      messageId,
    ])) as Raw[];
    return rows.map(row);
  }
}
