import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager } from 'typeorm';
import type { Channel, MessageStatus } from './channel.js';
import type {
  AcceptedAnswerRow,
  DispatchRequest,
  MessageGroup,
  NewSendRequest,
  QueuedRequest,
  ReplayRequest,
  WaitingMessage,
} from './message.types.js';
import { messagesInserts, requestsInsert } from './message-inserts.js';

export type * from './message.types.js';

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

const REPLAY_COLUMNS =
  'id, request_hash, accepted_count, units_per_recipient, cost, currency, created_at, send_at, priority';

/**
 * The statements on send_requests and messages of accepting, queueing and dispatching; those of
 * a state change (with message_events) are MessageStateStore's. Methods that take an
 * EntityManager run in the caller's transaction; the others on their own connection.
 */
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
}
