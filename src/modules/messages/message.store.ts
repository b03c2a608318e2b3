import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel, MessageStatus } from './channel.js';
import type {
  AcceptedAnswerRow,
  DispatchRequest,
  LockedMessage,
  MessageGroup,
  NewSendRequest,
  QueuedRequest,
  ReplayRequest,
  StateWrite,
  WaitingMessage,
} from './message.types.js';
import { messagesInserts, requestsInsert } from './message-inserts.js';
import { together, type Statement } from '../../database/statement.js';

export type * from './message.types.js';

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

const DISPATCH_REQUEST =
  'SELECT account_id, sender, body, subject, reply_to, priority, test_mode, suppression_exempt FROM send_requests WHERE id = ?';
const DISPATCH_REQUESTS =
  'SELECT id, account_id, sender, body, subject, reply_to, priority, test_mode, suppression_exempt FROM send_requests WHERE id IN (?)';
const WAITING =
  "SELECT id, uuid, recipient, body, subject, send_request_id FROM messages WHERE id IN (?) AND status = 'ACKNOWLEDGED' ORDER BY id";

type DispatchRequestRow = Omit<DispatchRequest, 'test_mode' | 'suppression_exempt'> & {
  test_mode: number;
  suppression_exempt: number;
};

function dispatchRequest(row: DispatchRequestRow | undefined): DispatchRequest | undefined {
  if (!row) return undefined;
  // Only a test request or a STOP confirmation carries these flags; any other request has neither.
  const { test_mode, suppression_exempt, ...rest } = row;
  return {
    ...rest,
    ...(test_mode ? { test_mode: true as const } : {}),
    ...(suppression_exempt ? { suppression_exempt: true as const } : {}),
  };
}

/**
 * Every statement on send_requests, messages and message_events. Methods that take an
 * EntityManager run in the caller's transaction; the others on their own connection.
 */
const REPLAY_COLUMNS =
  'id, request_hash, accepted_count, units_per_recipient, cost, currency, created_at, send_at, priority';

@Injectable()
export class MessageStore {
  constructor(@InjectDataSource() private readonly ds: DataSource) {}

  // ------------------------------------------------------------------ accepting

  /** One multi-row INSERT of request rows; a repeated key surfaces as the driver's error (errno 1062). */
  async insertRequests(em: EntityManager, requests: NewSendRequest[]): Promise<void> {
    const s = requestsInsert(requests);
    await em.query(s.sql, s.params);
  }

  /**
   * Multi-row INSERTs in chunks: one round trip per 2,000 messages, whichever requests they
   * belong to. (TypeORM's save() would re-read every row, about fifty times slower.)
   */
  async insertMessages(em: EntityManager, groups: MessageGroup[]): Promise<void> {
    for (const s of messagesInserts(groups)) await em.query(s.sql, s.params);
  }

  /** The stored request a repeated user_reference_id names, for an idempotent replay. */
  async findReplay(
    accountId: string,
    channel: Channel,
    userReferenceId: string,
    testMode = false,
  ): Promise<ReplayRequest | undefined> {
    const [req] = (await this.ds.query(
      `SELECT ${REPLAY_COLUMNS} FROM send_requests
        WHERE account_id = ? AND channel = ? AND test_mode = ? AND user_reference_id = ?`,
      [accountId, channel, testMode ? 1 : 0, userReferenceId],
    )) as ReplayRequest[];
    return req;
  }

  /** A stored request by its id (api_reference), for a replay under an Idempotency-Key. */
  async findReplayById(sendRequestId: string): Promise<ReplayRequest | undefined> {
    const [req] = (await this.ds.query(`SELECT ${REPLAY_COLUMNS} FROM send_requests WHERE id = ?`, [
      sendRequestId,
    ])) as ReplayRequest[];
    return req;
  }

  /** A request's messages in id order, as needed to give its first answer again. */
  async acceptedAnswer(sendRequestId: string): Promise<AcceptedAnswerRow[]> {
    return (await this.ds.query(
      'SELECT id, uuid, recipient, reason, units, send_at FROM messages WHERE send_request_id = ? ORDER BY id',
      [sendRequestId],
    )) as AcceptedAnswerRow[];
  }

  // ------------------------------------------------------------------ queueing

  /** Marks requests whose jobs reached the queue. */
  async markEnqueued(sendRequestIds: string[]): Promise<void> {
    await this.ds.query('UPDATE send_requests SET enqueued_at = CURRENT_TIMESTAMP(3) WHERE id IN (?)', [
      sendRequestIds,
    ]);
  }

  /** Requests stored at least `minAgeMs` ago whose jobs never reached the queue, oldest first. */
  async findUnenqueued(minAgeMs: number, limit: number): Promise<QueuedRequest[]> {
    return (await this.ds.query(
      `SELECT id, channel, priority, test_mode FROM send_requests
        WHERE enqueued_at IS NULL AND created_at < UTC_TIMESTAMP(3) - INTERVAL ? MICROSECOND
        ORDER BY id LIMIT ?`,
      [minAgeMs * 1000, limit],
    )) as QueuedRequest[];
  }

  /** Requests after `cursor` (in id order) that still have messages waiting to be handed over. */
  async findWaitingRequests(cursor: string, limit: number): Promise<Array<{ id: string }>> {
    return (await this.ds.query(
      `SELECT DISTINCT send_request_id AS id FROM messages FORCE INDEX (ix_messages_status_sent_request)
        WHERE status = 'ACKNOWLEDGED' AND sent_at IS NULL AND send_request_id > ?
        ORDER BY send_request_id LIMIT ?`,
      [cursor, limit],
    )) as Array<{ id: string }>;
  }

  /** Of the given requests, those enqueued more than `quietMs` ago none of whose messages changed since. */
  async findStranded(sendRequestIds: string[], quietMs: number): Promise<QueuedRequest[]> {
    const quietUs = quietMs * 1000;
    return (await this.ds.query(
      `SELECT r.id, r.channel, r.priority, r.test_mode FROM send_requests r
        WHERE r.id IN (?) AND r.enqueued_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND
          AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.send_request_id = r.id
                           AND m.updated_at >= CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND)`,
      [sendRequestIds, quietUs, quietUs],
    )) as QueuedRequest[];
  }

  /** The status of each accepted (charged) message of a request, in id order. */
  async acceptedStates(sendRequestId: string): Promise<Array<{ id: string; status: MessageStatus }>> {
    return (await this.ds.query(
      'SELECT id, status FROM messages WHERE send_request_id = ? AND units > 0 ORDER BY id',
      [sendRequestId],
    )) as Array<{ id: string; status: MessageStatus }>;
  }

  // ------------------------------------------------------------------ dispatching

  /** What a transport needs of the request: sender, body and, for e-mail, subject and reply-to. */
  async findDispatchRequest(sendRequestId: string): Promise<DispatchRequest | undefined> {
    const [request] = (await this.ds.query(DISPATCH_REQUEST, [sendRequestId])) as DispatchRequestRow[];
    return dispatchRequest(request);
  }

  /** Of the given messages, those still waiting to be handed over, in id order. */
  async findWaiting(messageIds: string[]): Promise<WaitingMessage[]> {
    return (await this.ds.query(WAITING, [messageIds])) as WaitingMessage[];
  }

  /**
   * A job's requests (one, or those of a shared job), by id, and those of its messages still
   * waiting (findDispatchRequest, findWaiting), in one round trip.
   */
  async findDispatchWork(
    sendRequestIds: string[],
    messageIds: string[],
  ): Promise<{ requests: Map<string, DispatchRequest>; waiting: WaitingMessage[] }> {
    const [rows, waiting] = (await this.ds.query(`${DISPATCH_REQUESTS};\n${WAITING}`, [
      sendRequestIds,
      messageIds,
    ])) as [Array<DispatchRequestRow & { id: string }>, WaitingMessage[]];
    const requests = new Map<string, DispatchRequest>();
    for (const { id, ...row } of rows) requests.set(String(id), dispatchRequest(row)!);
    for (const w of waiting) w.send_request_id = String(w.send_request_id);
    return { requests, waiting };
  }

  /** One UPDATE per slice: every message tried counts an attempt; failures keep their reason. */
  async recordAttempts(ids: string[], reasons: Array<[string, string]>): Promise<void> {
    if (ids.length === 0) return;
    const params: unknown[] = [new Date()];
    // Only placeholders and constant text: the CASE keeps last_error for the messages that passed.
    let cases = 'last_error';
    if (reasons.length) {
      cases = `CASE id ${reasons.map(() => 'WHEN ? THEN ?').join(' ')} ELSE last_error END`;
      for (const [id, reason] of reasons) params.push(id, reason);
    }
    params.push(ids);
    await this.ds.query(
      `UPDATE messages SET attempts = LEAST(attempts + 1, 255), last_attempt_at = ?, last_error = ${cases} WHERE id IN (?)`,
      params,
    );
  }

  /** Messages of the given channels SENT more than `waitMs` ago, oldest first. */
  async findSentBefore(waitMs: number, channels: Channel[], limit: number): Promise<Array<{ id: string }>> {
    return (await this.ds.query(
      `SELECT id FROM messages FORCE INDEX (ix_messages_status_sent_request)
        WHERE status = 'SENT' AND sent_at < CURRENT_TIMESTAMP(3) - INTERVAL ? MICROSECOND AND channel IN (?)
        ORDER BY sent_at LIMIT ?`,
      [waitMs * 1000, channels, limit],
    )) as Array<{ id: string }>;
  }

  // ------------------------------------------------------------------ transitions

  /**
   * Rewrites the stored text of messages already handed over (a verification's, whose code
   * must not outlive the hand-over). Only a message past ACKNOWLEDGED is changed, so the text
   * a worker is about to send is never the masked one. Answers the ids it rewrote.
   */
  async replaceSentBodies(texts: Array<{ id: string; body: string }>): Promise<string[]> {
    const done: string[] = [];
    for (const t of texts) {
      const r = (await this.ds.query(
        `UPDATE messages SET body = ? WHERE id = ? AND status NOT IN ('ACKNOWLEDGED', 'SCHEDULED')`,
        [t.body, t.id],
      )) as { affectedRows: number };
      if (r.affectedRows === 1) done.push(t.id);
    }
    return done;
  }

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
