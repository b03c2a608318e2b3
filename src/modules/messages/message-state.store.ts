import { Injectable } from '@nestjs/common';
import type { EntityManager } from 'typeorm';
import type { MessageStatus } from './channel.js';
import type { LockedMessage, StateWrite } from './message.types.js';
import { together, type Statement } from '../../database/statement.js';

/**
 * What entering a state does to a pending chat-to-SMS fallback (a NULL fallback_due_at, no
 * fallback, stays NULL): delivered or cancelled, none is needed; ended undelivered, it is due now.
 */
const FALLBACK_ON_ENTRY: Partial<Record<MessageStatus, string>> = {
  DELIVERED: ', fallback_due_at = NULL',
  CANCELLED: ', fallback_due_at = NULL',
  UNDELIVERED: ', fallback_due_at = LEAST(fallback_due_at, UTC_TIMESTAMP(3))',
  REJECTED: ', fallback_due_at = LEAST(fallback_due_at, UTC_TIMESTAMP(3))',
  FAILED: ', fallback_due_at = LEAST(fallback_due_at, UTC_TIMESTAMP(3))',
  EXPIRED: ', fallback_due_at = LEAST(fallback_due_at, UTC_TIMESTAMP(3))',
};

/**
 * The statements of a message's state change: the messages locked with their request's
 * callback data, then the new states and their history (message_events) written. Both run in
 * the caller's transaction.
 */
@Injectable()
export class MessageStateStore {
  /**
   * Locks the messages for a state change, with their request's callback_url and
   * user_reference_id. Only the message rows are locked, by primary key: a locking read over
   * the join also locked send_requests rows (and, with a scan plan, rows of other messages), so
   * batches touching the same requests in another order deadlocked. Request columns are immutable.
   */
  async lockForTransition(em: EntityManager, ids: string[]): Promise<LockedMessage[]> {
    // One round trip: the request columns come from a plain (non-locking) read of the same
    // transaction. A join from the messages' primary key (MariaDB planned `IN (SELECT …)` as a scan of send_requests).
    const [rows, requests] = (await em.query(
      `SELECT id, uuid, status, account_id, channel, recipient, cost, send_request_id, created_at, claimed_at,
              smpp_credential_id AS smppCredentialId, smpp_registered_delivery AS smppRegisteredDelivery
         FROM messages FORCE INDEX (PRIMARY) WHERE id IN (?) FOR UPDATE;
       SELECT DISTINCT r.id, r.callback_url, r.user_reference_id, r.api_key_id, r.test_mode
         FROM messages m JOIN send_requests r ON r.id = m.send_request_id WHERE m.id IN (?)`,
      [ids, ids],
    )) as [
      LockedMessage[],
      Array<{
        id: string;
        callback_url: string | null;
        user_reference_id: string | null;
        api_key_id: string;
        test_mode: number;
      }>,
    ];
    const requestById = new Map(requests.map((r) => [String(r.id), r]));
    for (const row of rows) {
      const req = requestById.get(String(row.send_request_id));
      row.callback_url = req?.callback_url ?? null;
      row.user_reference_id = req?.user_reference_id ?? null;
      row.api_key_id = req ? String(req.api_key_id) : null;
      row.test_mode = !!req?.test_mode;
    }
    return rows;
  }

  /** One UPDATE per target state and one multi-row INSERT of history, whatever the batch size. */
  async writeTransitions(em: EntityManager, changes: StateWrite[]): Promise<void> {
    if (changes.length === 0) return;
    const groups = new Map<MessageStatus, StateWrite[]>();
    for (const c of changes) groups.set(c.status, [...(groups.get(c.status) ?? []), c]);
    const statements: Statement[] = [];
    for (const [status, items] of groups) {
      const ids = items.map((c) => c.id);
      // One value for every row where they agree (a slice's time, its connector, no reason): a
      // CASE of a slice's 200 ids is parsed and searched for each of its 200 rows.
      const valueOf = (pick: (c: StateWrite) => unknown) => {
        const first = pick(items[0]);
        if (items.every((c) => sameValue(pick(c), first)))
          return { sql: '?', params: [first], allNull: first === null || first === undefined };
        const params: unknown[] = [];
        const sql = items.map((c) => (params.push(c.id, pick(c) ?? null), 'WHEN ? THEN ?')).join(' ');
        return { sql: `CASE id ${sql} END`, params, allNull: false };
      };
      /** `column = COALESCE(value, column)`: nothing to write where no row has a value. */
      const keep = (column: string, pick: (c: StateWrite) => unknown) => {
        const v = valueOf(pick);
        return v.allNull
          ? { sql: '', params: [] }
          : { sql: `, ${column} = COALESCE(${v.sql}, ${column})`, params: v.params };
      };
      const reason = keep('reason', (c) => c.reason);
      const provider = keep('provider_message_id', (c) => c.providerMessageId);
      const connector = keep('connector', (c) => c.connector);
      const at = valueOf((c) => c.at);
      const stamp = status === 'SENT' ? 'sent_at' : 'completed_at';
      // A hand-over that ends in this state counts its attempt in the same write (SENT, REJECTED).
      const tried = items.filter((c) => c.attempted).map((c) => c.id);
      const attempt =
        tried.length === items.length
          ? {
              sql: `, attempts = LEAST(attempts + 1, 255), last_attempt_at = ${at.sql}`,
              params: at.params,
            }
          : tried.length
            ? {
                sql: `, attempts = IF(id IN (?), LEAST(attempts + 1, 255), attempts),
                last_attempt_at = IF(id IN (?), ${at.sql}, last_attempt_at)`,
                params: [tried, tried, ...at.params],
              }
            : { sql: '', params: [] };
      const onEntry = FALLBACK_ON_ENTRY[status] ?? '';
      statements.push({
        sql: `UPDATE messages SET status = ?${reason.sql}${provider.sql}, ${stamp} = ${at.sql}${connector.sql}${attempt.sql}${onEntry}
          WHERE id IN (?)`,
        params: [
          status,
          ...reason.params,
          ...provider.params,
          ...at.params,
          ...connector.params,
          ...attempt.params,
          ids,
        ],
      });
    }
    statements.push({
      sql: `INSERT INTO message_events (message_id, status, reason, occurred_at) VALUES ${changes.map(() => '(?, ?, ?, ?)').join(',')}`,
      params: changes.flatMap((c) => [c.id, c.status, c.reason, c.at]),
    });
    // The state writes and their history in one round trip.
    const all = together(statements);
    await em.query(all.sql, all.params);
  }
}

/** Equal as SQL parameters: dates by their time, the rest (strings, numbers, null) as they are. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  return (a ?? null) === (b ?? null);
}
