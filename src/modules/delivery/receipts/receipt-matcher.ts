import type { EntityManager } from 'typeorm';
import { MessagePartsStore, type PartOutcome, type PartRow } from '../../messages/message-parts.store.js';
import { idKeys, submitKeysFor, type ReceiptIdFormat } from '../smpp/receipt-ids.js';
import type { DeliveryReport } from '../transports/transport.js';
import { withFields } from '../../../platform/objects/with-fields.js';

export type ReportStatus = DeliveryReport['status'];

export type { PartRow };

/** A receipt to match: the provider's id, and the connector it arrived on when it names one. */
export interface ReceiptRef {
  providerMessageId: string;
  connector?: string | null;
}

/**
 * What a receipt's match is found under: its id, behind its connector when it has one. The same id
 * from two connectors is two receipts (SMSCs number their messages independently).
 */
export function receiptKey(r: string | ReceiptRef): string {
  if (typeof r === 'string') return r;
  return r.connector ? `${r.connector}\u0000${r.providerMessageId}` : r.providerMessageId;
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
    private readonly parts: MessagePartsStore,
    private readonly format: ReceiptIdFormat,
  ) {}

  /**
   * The part each receipt matches (closest form first, then the newest message), by receiptKey. A
   * receipt that names its connector matches only parts of messages sent over that connector or
   * over none recorded; one that names none matches any. One query for the whole batch.
   */
  async match(receipts: ReceiptRef[]): Promise<Map<string, PartRow>> {
    const refs = [
      ...new Map(receipts.filter((r) => r.providerMessageId !== '').map((r) => [receiptKey(r), r])).values(),
    ];
    if (refs.length === 0) return new Map();
    const raws = [...new Set(refs.map((r) => r.providerMessageId))];
    const keys = [...new Set(raws.flatMap((r) => submitKeysFor(this.format, r)))];
    // Narrowed in the query only when every receipt names its connector; bestMatches decides either way.
    const connectors = refs.every((r) => r.connector)
      ? [...new Set(refs.map((r) => r.connector!))]
      : undefined;
    const candidates = await this.parts.findCandidates(raws, keys, connectors);
    return bestMatches(this.format, candidates, refs);
  }

  /**
   * What each part's receipt makes of its message (the first receipt of a part counts). The parts
   * of a message handed over in several are recorded at once, then their message's state is read
   * back from all its parts; a single-part message's outcome is its receipt's, and its part is
   * recorded by `alongside`, to run in the transaction that changes the message's state.
   */
  async recordParts(items: Array<{ part: PartRow; report: DeliveryReport }>): Promise<{
    outcomes: Array<{ id: string; status: ReportStatus; reason: string | null }>;
    alongside: (em: EntityManager) => Promise<void>;
  }> {
    const byPart = new Map<string, { part: PartRow; report: DeliveryReport }>();
    for (const item of items) {
      const key = `${item.part.message_id}/${item.part.part}`;
      if (!byPart.has(key)) byPart.set(key, item);
    }
    // In id order, so two batches touching the same messages lock them in the same order.
    const list = [...byPart.values()].sort(
      (a, b) => compareIds(a.part.message_id, b.part.message_id) || a.part.part - b.part.part,
    );
    const single = list.filter((i) => Number(i.part.parts) === 1);
    const several = list.filter((i) => Number(i.part.parts) !== 1);
    await this.recordByState(several);
    const messageIds = [...new Set(several.map((i) => i.part.message_id))];
    const parts = await this.parts.partStates(messageIds);
    const grouped = new Map<string, typeof parts>();
    for (const p of parts)
      grouped.set(String(p.message_id), [...(grouped.get(String(p.message_id)) ?? []), p]);
    const outcomes: Array<{ id: string; status: ReportStatus; reason: string | null }> = [];
    for (const id of messageIds) {
      const combined = combineParts(grouped.get(id) ?? []);
      if (combined) outcomes.push({ id, ...combined });
    }
    for (const { part, report } of single)
      outcomes.push({
        id: part.message_id,
        ...combineParts([{ status: report.status, reason: report.reason ?? null }])!,
      });
    return { outcomes, alongside: (em) => this.recordByState(single, em) };
  }

  /** One UPDATE per reported state and reason (a batch of receipts holds few of either). */
  private async recordByState(
    list: Array<{ part: PartRow; report: DeliveryReport }>,
    em?: EntityManager,
  ): Promise<void> {
    const groups = new Map<string, { state: string; parts: PartOutcome[] }>();
    for (const { part, report } of list) {
      const reason = report.reason ?? null;
      const key = `${report.status}\u0000${reason ?? ''}`;
      const group = groups.get(key) ?? { state: report.status, parts: [] };
      group.parts.push({ messageId: part.message_id, part: part.part, reason });
      groups.set(key, group);
    }
    for (const { state, parts } of groups.values()) await this.parts.recordOutcomes(state, parts, em);
  }
}

/**
 * For each receipt, its best candidate under `format`, by the ranks of matchRank (0 the same
 * text, 1 the same number in the same base, 2 a hexadecimal submit id written in decimal), then
 * the newest message, by receiptKey. Each candidate's keys are read once and indexed: n lookups
 * for n receipts. A receipt naming its connector (a bare id names none) passes over candidates
 * whose message went out on another connector.
 */
export function bestMatches(
  format: ReceiptIdFormat,
  candidates: PartRow[],
  receipts: Array<string | ReceiptRef>,
): Map<string, PartRow> {
  const byRaw = new Map<string, PartRow[]>();
  const byHex = new Map<string, PartRow[]>();
  for (const c of candidates) {
    const k = idKeys(c.provider_message_id);
    if (k.raw !== '') append(byRaw, k.raw, c);
    if (k.hex !== null) append(byHex, k.hex, c);
  }
  const sameBase = format === 'hex' || format === 'auto';
  const fromHex = format === 'decimal' || format === 'auto';
  const found = new Map<string, PartRow>();
  for (const r of receipts) {
    const ref = typeof r === 'string' ? { providerMessageId: r } : r;
    const connector = ref.connector || null;
    const k = idKeys(ref.providerMessageId);
    let best = pick(null, byRaw.get(k.raw), 0, connector);
    if (sameBase && k.hex !== null) best = pick(best, byHex.get(k.hex), 1, connector);
    if (fromHex && k.dec !== null) best = pick(best, byHex.get(k.dec), 2, connector);
    if (best) found.set(receiptKey(r), withFields(best.row, { message_id: String(best.row.message_id) }));
  }
  return found;
}

type Ranked = { row: PartRow; rank: number } | null;

/**
 * The better of `best` and `rows` at `rank`: the lower rank, then the newest message. Rows of
 * messages sent over a connector other than `connector` (when given) do not count.
 */
function pick(best: Ranked, rows: PartRow[] | undefined, rank: number, connector: string | null): Ranked {
  for (const row of rows ?? []) {
    if (connector !== null && row.connector != null && row.connector !== connector) continue;
    if (
      !best ||
      rank < best.rank ||
      (rank === best.rank && compareIds(String(row.message_id), String(best.row.message_id)) > 0)
    )
      best = { row, rank };
  }
  return best;
}

function append<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Numeric order of row ids given as decimal text (no leading zeros), without converting them. */
export function compareIds(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
