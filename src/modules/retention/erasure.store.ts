import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { LOG_DB, NOTIFICATION_DB } from '../../database/data-sources.js';
import type { WebhookEnvelope } from '../callbacks/callback-job.js';
import { CallbackStore } from '../callbacks/callback.store.js';
import { affected, FINAL } from './retention.store.js';

const CHUNK = 1000;

/** Which of an account's rows an erasure reaches: both sides, or only its test or live side. */
export interface ErasureScope {
  accountId: string;
  /** undefined: live and test data alike. */
  testMode?: boolean;
}

/** Rows changed, per table. */
export interface ErasedRows {
  messages: number;
  send_requests: number;
  inbound_messages: number;
  verifications: number;
  callback_outbox: number;
  webhook_deliveries: number;
  idempotency_keys: number;
  request_logs: number;
  short_links: number;
}

/** The text of a LIKE pattern that finds `s` anywhere (its wildcards and escape character taken literally). */
const containing = (s: string) => `%${s.replace(/[\\%_]/g, '\\$&')}%`;

/** `s` as XML text writes it (the XML send answer lists each recipient as an element's text). */
const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Who an erasure takes out of webhook envelopes, and the messages to it still under way (left as they are). */
export interface EnvelopeErasure {
  recipient: string;
  replacement: string;
  /** Row ids of the recipient's messages not yet final. */
  pending: Set<string>;
}

/**
 * An envelope with the recipient erased, as the outbox's events are: a message event of a message
 * no longer under way (erased now, or archived) names the replacement as recipient; an
 * inbound.received event from the recipient names it as sender and loses its text; a
 * verification.* event (told only once its verification is closed) names it as `to`. undefined
 * when the envelope is about none of them. `subjectId` is the row the event is about.
 */
function erasedEnvelope(
  envelope: WebhookEnvelope,
  subjectId: string,
  e: EnvelopeErasure,
): WebhookEnvelope | undefined {
  const data = envelope.data as Record<string, unknown>;
  if (envelope.type === 'inbound.received' && data.from === e.recipient)
    return { ...envelope, data: { ...data, from: e.replacement, text: '' } };
  if (envelope.type.startsWith('message.') && data.recipient === e.recipient && !e.pending.has(subjectId))
    return { ...envelope, data: { ...data, recipient: e.replacement } };
  if (envelope.type.startsWith('verification.') && data.to === e.recipient)
    return { ...envelope, data: { ...data, to: e.replacement } };
  return undefined;
}

/** ' AND <column> = ?' with its value when the scope is one side (test or live), else nothing. */
function sideOf(scope: ErasureScope, column: string, test: unknown = 1, live: unknown = 0) {
  if (scope.testMode === undefined) return { mode: '', params: [] as unknown[] };
  return { mode: ` AND ${column} = ?`, params: [scope.testMode ? test : live] };
}

/**
 * The statements of a recipient's erasure. The number and the text go; the amounts, states and
 * times stay, so balances, summaries and the ledger still add up. Messages not yet final are left
 * alone (the dispatch still needs their number) and counted.
 */
@Injectable()
export class ErasureStore {
  constructor(
    @InjectDataSource() private readonly main: DataSource,
    @InjectDataSource(NOTIFICATION_DB) private readonly notifications: DataSource,
    @InjectDataSource(LOG_DB) private readonly logs: DataSource,
    private readonly callbacks: CallbackStore,
  ) {}

  async messagesTo(scope: ErasureScope, recipient: string) {
    const side = sideOf(scope, 'r.test_mode');
    const { mode } = side;
    const params: unknown[] = [scope.accountId, recipient, ...side.params];
    const rows = (await this.main.query(
      `SELECT m.id, m.send_request_id, m.status IN (${FINAL}) AS final
         FROM messages m FORCE INDEX (ix_messages_account_recipient_created)
         JOIN send_requests r ON r.id = m.send_request_id
        WHERE m.account_id = ? AND m.recipient = ?${mode}`,
      params,
    )) as Array<{ id: string; send_request_id: string; final: number | string }>;
    const final = rows.filter((r) => Number(r.final) === 1);
    return {
      ids: final.map((r) => String(r.id)),
      requestIds: [...new Set(final.map((r) => String(r.send_request_id)))],
      pending: rows.length - final.length,
      pendingIds: rows.filter((r) => Number(r.final) !== 1).map((r) => String(r.id)),
    };
  }

  /**
   * Replaces the number and drops the personalised text of these messages; then empties the text
   * (and a chat request's fallback text) of each request whose every message is now erased (a
   * bulk request's text, shared with other recipients, stays).
   */
  async erase(
    ids: string[],
    requestIds: string[],
    replacement: string,
  ): Promise<{ messages: number; send_requests: number }> {
    let messages = 0;
    let requests = 0;
    for (let i = 0; i < ids.length; i += CHUNK)
      messages += affected(
        await this.main.query(
          `UPDATE messages SET recipient = ?, body = NULL, subject = NULL WHERE id IN (?) AND status IN (${FINAL})`,
          [replacement, ids.slice(i, i + CHUNK)],
        ),
      );
    for (let i = 0; i < requestIds.length; i += CHUNK)
      requests += affected(
        await this.main.query(
          `UPDATE send_requests SET body = '', subject = NULL, fallback_body = NULL
            WHERE id IN (?) AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.send_request_id = send_requests.id AND m.recipient <> ?)`,
          [requestIds.slice(i, i + CHUNK), replacement],
        ),
      );
    return { messages, send_requests: requests };
  }

  /** The inbound messages the recipient sent to the account: number and text replaced; their row ids. */
  async eraseInbound(scope: ErasureScope, sender: string, replacement: string): Promise<string[]> {
    const side = sideOf(scope, 'test_mode');
    const { mode } = side;
    const ids = (
      (await this.main.query(`SELECT id FROM inbound_messages WHERE account_id = ? AND sender = ?${mode}`, [
        scope.accountId,
        sender,
        ...side.params,
      ])) as Array<{ id: string }>
    ).map((r) => String(r.id));
    for (let i = 0; i < ids.length; i += CHUNK)
      await this.main.query(
        `UPDATE inbound_messages SET sender = ?, text = '', reply_text = NULL WHERE id IN (?) AND sender = ?`,
        [replacement, ids.slice(i, i + CHUNK), sender],
      );
    return ids;
  }

  /**
   * The recipient's verifications on this side of the account that are closed (approved, failed,
   * expired, canceled): the replacement in place of the number, and the text their code's message
   * kept (masked_body) dropped, as the message's own is; masked_at set, so the recovery round of
   * the masking never writes that text back into the erased message. Pending ones are left (a
   * check still needs the row) and counted.
   */
  async eraseVerifications(
    scope: ErasureScope,
    recipient: string,
    replacement: string,
  ): Promise<{ verifications: number; pending: number }> {
    // Both sides named, so the key (account_id, test_mode, recipient, created_at) is read whole.
    const sides = scope.testMode === undefined ? [0, 1] : [scope.testMode ? 1 : 0];
    const changed = affected(
      await this.main.query(
        `UPDATE verifications SET recipient = ?, masked_body = NULL, masked_at = COALESCE(masked_at, ?)
          WHERE account_id = ? AND test_mode IN (?) AND recipient = ? AND status <> 'pending'`,
        [replacement, new Date(), scope.accountId, sides, recipient],
      ),
    );
    // What still names the number is pending (or closed since the UPDATE): erase again later.
    const [left] = (await this.main.query(
      `SELECT COUNT(*) AS n FROM verifications WHERE account_id = ? AND test_mode IN (?) AND recipient = ?`,
      [scope.accountId, sides, recipient],
    )) as Array<{ n: number | string }>;
    return { verifications: changed, pending: Number(left?.n ?? 0) };
  }

  /**
   * Callback events not yet delivered (the outbox's copy of each queued payload): a message event
   * of an erased message gets the replacement as recipient; an inbound event of an erased inbound
   * message gets it as sender, and loses its text; a webhook event's envelope is rewritten as the
   * delivery log's (erasedEnvelope). The recipient's events are found by their
   * recipient hash (indexed), so an erasure reads only them however full the outbox is; events
   * kept without a hash (before the column existed, until `db hash-outbox` runs) are found by
   * their text among those alone. A changed event's hash becomes the replacement's.
   */
  async eraseOutbox(
    scope: ErasureScope,
    recipient: string,
    erased: { messages: Set<string>; inbound: Set<string>; pending: Set<string> },
    replacement: string,
  ): Promise<number> {
    const envelopes: EnvelopeErasure = { recipient, replacement, pending: erased.pending };
    const rows = (await this.notifications.query(
      `SELECT event_id, job FROM callback_outbox FORCE INDEX (ix_callback_outbox_recipient)
        WHERE recipient_hash = ? OR (recipient_hash IS NULL AND job LIKE ?)`,
      [this.callbacks.recipientHash(recipient), containing(JSON.stringify(recipient).slice(1, -1))],
    )) as Array<{ event_id: string; job: string }>;
    const replacementHash = this.callbacks.recipientHash(replacement);
    let changed = 0;
    for (const row of rows) {
      const job = JSON.parse(row.job) as {
        accountId: string;
        messageRowId: string;
        eventType?: string;
        payload: Record<string, unknown>;
      };
      const p = job.payload;
      if (job.accountId !== scope.accountId) continue;
      if (scope.testMode !== undefined && (p.test === true) !== scope.testMode) continue;
      const envelope =
        job.eventType === 'webhook'
          ? erasedEnvelope(p as unknown as WebhookEnvelope, job.messageRowId, envelopes)
          : undefined;
      if (envelope) job.payload = envelope as unknown as Record<string, unknown>;
      else if (job.eventType === 'inbound' && erased.inbound.has(job.messageRowId) && p.from === recipient)
        job.payload = { ...p, from: replacement, text: '' };
      else if (!job.eventType && erased.messages.has(job.messageRowId) && p.recipient === recipient)
        job.payload = { ...p, recipient: replacement };
      else continue;
      changed += affected(
        await this.notifications.query(
          'UPDATE callback_outbox SET job = ?, recipient_hash = ? WHERE event_id = ?',
          [JSON.stringify(job), replacementHash, row.event_id],
        ),
      );
    }
    return changed;
  }

  /**
   * The webhook delivery log (7 days of envelopes as POSTed, replayed from there): the account's
   * envelopes about the recipient are rewritten as the outbox's webhook events are
   * (erasedEnvelope), delivered or not, so a replay or a first attempt still owed sends the
   * rewritten one. They are found by their recipient hash (indexed); rows logged without one (before
   * the column existed, until `db hash-outbox` runs) by their text among those alone. An event's
   * copies (one per endpoint) share one envelope: one statement per event. A changed row's hash
   * becomes the replacement's.
   */
  async eraseWebhookDeliveries(scope: ErasureScope, erasure: EnvelopeErasure): Promise<number> {
    const rows = (await this.notifications.query(
      `SELECT id, subject_id, envelope FROM webhook_deliveries FORCE INDEX (ix_webhook_deliveries_recipient)
        WHERE (recipient_hash = ? OR (recipient_hash IS NULL AND envelope LIKE ?)) AND account_id = ?`,
      [
        this.callbacks.recipientHash(erasure.recipient),
        containing(JSON.stringify(erasure.recipient).slice(1, -1)),
        scope.accountId,
      ],
    )) as Array<{ id: string; subject_id: string; envelope: string }>;
    const byEnvelope = new Map<string, string[]>();
    for (const row of rows) {
      const envelope = JSON.parse(row.envelope) as WebhookEnvelope;
      if (scope.testMode !== undefined && (envelope.test === true) !== scope.testMode) continue;
      const erased = erasedEnvelope(envelope, String(row.subject_id), erasure);
      if (!erased) continue;
      const text = JSON.stringify(erased);
      const ids = byEnvelope.get(text);
      if (ids) ids.push(String(row.id));
      else byEnvelope.set(text, [String(row.id)]);
    }
    const replacementHash = this.callbacks.recipientHash(erasure.replacement);
    let changed = 0;
    for (const [envelope, ids] of byEnvelope)
      for (let i = 0; i < ids.length; i += CHUNK)
        changed += affected(
          await this.notifications.query(
            'UPDATE webhook_deliveries SET envelope = ?, recipient_hash = ? WHERE id IN (?)',
            [envelope, replacementHash, ids.slice(i, i + CHUNK)],
          ),
        );
    return changed;
  }

  /**
   * The kept answers of idempotent requests (24 hours at most): the recipient's entries, in JSON
   * (`"mobile_number":"…"`) or XML (`<recipient>…</recipient>`), name the replacement instead. A
   * replay answers the same, with the number erased.
   */
  async eraseKeptAnswers(scope: ErasureScope, recipient: string, replacement: string): Promise<number> {
    const side = sideOf(scope, 'test_mode');
    const { mode } = side;
    const json = [JSON.stringify(recipient), JSON.stringify(replacement)];
    const xml = [`>${xmlText(recipient)}<`, `>${xmlText(replacement)}<`];
    return affected(
      await this.main.query(
        `UPDATE idempotency_keys SET body = REPLACE(REPLACE(body, ?, ?), ?, ?)
          WHERE account_id = ?${mode} AND (body LIKE ? OR body LIKE ?)`,
        [...json, ...xml, scope.accountId, ...side.params, containing(json[0]), containing(xml[0])],
      ),
    );
  }

  /**
   * Request logs keep no body and no query string, but a path may name the recipient (the removal
   * of a suppression: `/suppressions/sms/260971234567`). The account's keys' rows whose path holds
   * it are read, and each segment `names` recognises (decoded, then normalised as a send would)
   * is replaced. The log has no index by account: the rows are found through each key's.
   */
  async eraseRequestLogs(
    scope: ErasureScope,
    recipient: string,
    names: (segment: string) => boolean,
    replacement: string,
  ): Promise<number> {
    const side = sideOf(scope, 'mode', 'test', 'live');
    const { mode } = side;
    const keys = (
      (await this.main.query(`SELECT id FROM api_keys WHERE account_id = ?${mode}`, [
        scope.accountId,
        ...side.params,
      ])) as Array<{ id: string }>
    ).map((k) => String(k.id));
    if (keys.length === 0) return 0;
    // The number's digits survive URL encoding (a `+` becomes `%2B` before them); an address's `@` may not.
    const patterns = [...new Set([recipient, recipient.replace('@', '%40')])].map(containing);
    const rows = (await this.logs.query(
      `SELECT id, path FROM request_logs WHERE api_key_id IN (?) AND (path LIKE ? OR path LIKE ?)`,
      [keys, patterns[0], patterns[patterns.length - 1]],
    )) as Array<{ id: string; path: string }>;
    let changed = 0;
    for (const row of rows) {
      const path = row.path
        .split('/')
        .map((segment) => (names(segment) ? replacement : segment))
        .join('/');
      if (path === row.path) continue;
      changed += affected(
        await this.logs.query('UPDATE request_logs SET path = ? WHERE id = ?', [path, row.id]),
      );
    }
    return changed;
  }
}
