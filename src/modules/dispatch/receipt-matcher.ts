import type { DataSource, EntityManager } from 'typeorm';
import { idKeys, matchRank, submitKeysFor, type ReceiptIdFormat } from './transports/receipt-ids.js';
import type { DeliveryReport } from './transports/transport.js';

export type ReportStatus = DeliveryReport['status'];

export interface PartRow {
  message_id: string;
  part: number;
  provider_message_id: string;
}

// How bad a part's outcome is for the whole message: the worst part decides.
const SEVERITY: Record<ReportStatus, number> = { DELIVERED: 0, EXPIRED: 1, UNDELIVERED: 2, REJECTED: 3 };

/**
 * A message's state from its parts' receipts: DELIVERED only once every part is; as soon as one part is known
 * not delivered, the worst state among the parts reported so far (the message can no longer be DELIVERED and a
 * state never goes back). null while nothing decides it yet.
 */
export function combineParts(
  parts: Array<{ status: string | null; reason: string | null }>,
): { status: ReportStatus; reason: string | null } | null {
  const reported = parts.filter(
    (p): p is { status: ReportStatus; reason: string | null } => p.status !== null && p.status in SEVERITY,
  );
  if (reported.length === 0) return null;
  const worst = reported.reduce((a, b) => (SEVERITY[b.status] > SEVERITY[a.status] ? b : a));
  if (worst.status === 'DELIVERED' && reported.length < parts.length) return null;
  return { status: worst.status, reason: worst.status === 'DELIVERED' ? null : worst.reason };
}

/** Finds the part each receipt id belongs to, by the configured id format (see receipt-ids.ts). */
export class ReceiptMatcher {
  constructor(
    private readonly main: DataSource,
    private readonly format: ReceiptIdFormat,
  ) {}

  /** Records the parts of messages handed over; a resend replaces a part's earlier id. */
  async storeParts(
    em: DataSource | EntityManager,
    sent: Array<{ id: string; parts: string[] }>,
  ): Promise<void> {
    const rows = sent.flatMap((s) =>
      s.parts.map((p, i) => [s.id, i + 1, p, p === '' ? null : idKeys(p).hex]),
    );
    if (rows.length === 0) return;
    await em.query(
      `INSERT INTO message_parts (message_id, part, provider_message_id, id_value) VALUES ${rows.map(() => '(?, ?, ?, ?)').join(',')}
        ON DUPLICATE KEY UPDATE provider_message_id = VALUES(provider_message_id), id_value = VALUES(id_value)`,
      rows.flat(),
    );
  }

  /** The part each receipt id matches (closest form first, then the newest message), by receipt id. */
  async match(receiptIds: string[]): Promise<Map<string, PartRow>> {
    const raws = [...new Set(receiptIds.filter((r) => r !== ''))];
    if (raws.length === 0) return new Map();
    const keys = [...new Set(raws.flatMap((r) => submitKeysFor(this.format, r)))];
    // '' is never an id_value (digits or NULL): it stands for "no numeric key to look up".
    const candidates = (await this.main.query(
      'SELECT message_id, part, provider_message_id FROM message_parts WHERE provider_message_id IN (?) OR id_value IN (?)',
      [raws, keys.length ? keys : ['']],
    )) as PartRow[];
    const found = new Map<string, PartRow>();
    for (const r of raws) {
      let best: { row: PartRow; rank: number } | null = null;
      for (const c of candidates) {
        const rank = matchRank(this.format, c.provider_message_id, r);
        if (rank === null) continue;
        if (
          !best ||
          rank < best.rank ||
          (rank === best.rank && compareIds(String(c.message_id), String(best.row.message_id)) > 0)
        )
          best = { row: c, rank };
      }
      if (best) found.set(r, { ...best.row, message_id: String(best.row.message_id) });
    }
    return found;
  }

  /** Records each part's outcome (the first receipt of a part counts) and returns what its message becomes. */
  async recordParts(
    items: Array<{ part: PartRow; report: DeliveryReport }>,
  ): Promise<Array<{ id: string; status: ReportStatus; reason: string | null }>> {
    const byPart = new Map<string, { part: PartRow; report: DeliveryReport }>();
    for (const item of items) {
      const key = `${item.part.message_id}/${item.part.part}`;
      if (!byPart.has(key)) byPart.set(key, item);
    }
    if (byPart.size === 0) return [];
    // In id order, so two batches touching the same messages lock them in the same order.
    const list = [...byPart.values()].sort(
      (a, b) => compareIds(a.part.message_id, b.part.message_id) || a.part.part - b.part.part,
    );
    const caseOf = (items: typeof list, pick: (i: (typeof list)[number]) => unknown) => {
      const params: unknown[] = [];
      const sql = items
        .map(
          (i) => (
            params.push(i.part.message_id, i.part.part, pick(i)),
            'WHEN message_id = CAST(? AS UNSIGNED) AND part = ? THEN ?'
          ),
        )
        .join(' ');
      return { sql: `CASE ${sql} END`, params };
    };
    // Ids go over as text: in a row comparison MariaDB compares text with BIGINT as doubles, which
    // cannot tell consecutive 19-digit ids apart, hence the casts. One UPDATE per reported state. MySQL assigns left to right: reason and reported_at are set
    // only while status is still empty.
    for (const state of [...new Set(list.map((i) => i.report.status))]) {
      const group = list.filter((i) => i.report.status === state);
      const reason = caseOf(group, (i) => i.report.reason ?? null);
      await this.main.query(
        `UPDATE message_parts SET reason = IF(status IS NULL, ${reason.sql}, reason), reported_at = IF(status IS NULL, CURRENT_TIMESTAMP(3), reported_at),
                status = COALESCE(status, ?)
          WHERE (message_id, part) IN (${group.map(() => '(CAST(? AS UNSIGNED), ?)').join(',')})`,
        [...reason.params, state, ...group.flatMap((i) => [i.part.message_id, i.part.part])],
      );
    }
    const messageIds = [...new Set(list.map((i) => i.part.message_id))];
    const parts = (await this.main.query(
      'SELECT message_id, status, reason FROM message_parts WHERE message_id IN (?) ORDER BY message_id, part',
      [messageIds],
    )) as Array<{ message_id: string; status: string | null; reason: string | null }>;
    const grouped = new Map<string, typeof parts>();
    for (const p of parts)
      grouped.set(String(p.message_id), [...(grouped.get(String(p.message_id)) ?? []), p]);
    const out: Array<{ id: string; status: ReportStatus; reason: string | null }> = [];
    for (const id of messageIds) {
      const combined = combineParts(grouped.get(id) ?? []);
      if (combined) out.push({ id, ...combined });
    }
    return out;
  }
}

/** Numeric order of row ids given as decimal text (no leading zeros), without converting them. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
