import { exportRecord } from '../messages/search/message-export.service.js';
import type { ArchiveBatch, Family } from './message-archive.js';
import type { RelatedRows, RetainedMessage, Row } from './retention.store.js';

const dayOf = (iso: unknown) => String(iso).slice(0, 10);

/** A batch's rows by the UTC day their message was created, each family under its message's day. */
export function byDay(messages: RetainedMessage[], related: RelatedRows): ArchiveBatch {
  const out: ArchiveBatch = new Map();
  const dayOfMessage = new Map<string, string>();
  const put = (day: string, family: Family, row: object) => {
    let families = out.get(day);
    if (!families) out.set(day, (families = {}));
    (families[family] ??= []).push(row);
  };
  for (const m of messages) {
    const day = dayOf(m.created_at);
    dayOfMessage.set(String(m.id), day);
    put(day, 'messages', archivedMessage(m));
  }
  for (const family of ['message_events', 'message_parts', 'delivery_reports', 'callback_attempts'] as const)
    for (const row of related[family]) put(dayOfMessage.get(String(row.message_id))!, family, row);
  return out;
}

export function groupRows(
  rows: Row[],
  dateField: string,
  family: Family,
): Array<[string, Partial<Record<Family, Row[]>>]> {
  const days = new Map<string, Row[]>();
  for (const r of rows) {
    const day = dayOf(r[dateField]);
    days.set(day, [...(days.get(day) ?? []), r]);
  }
  return [...days].map(([day, list]) => [day, { [family]: list }]);
}

/** The export's fields, in its order, and the account the message belongs to. */
export const archivedMessage = (r: RetainedMessage) => ({
  ...exportRecord(r),
  account_id: String(r.account_id),
});
