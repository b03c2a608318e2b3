/**
 * The statements that store an accepted request: its send_requests row and its messages rows,
 * built here and run by MessageStore (each alone) or by the send committer (a batch's together,
 * src/database/statement.ts).
 */
import { sqlDateTime } from '../../database/data-sources.js';
import type { Statement } from '../../database/statement.js';
import type { MessageGroup, NewSendRequest } from './message.types.js';

const INSERT_CHUNK = 2000;
const COLUMNS =
  '(id, uuid, send_request_id, account_id, channel, recipient, status, reason, units, cost, body, subject, created_at, updated_at, send_at, fallback_due_at, fallback_of, smpp_credential_id, smpp_registered_delivery)';
const ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
/** Personalised texts make rows large: a chunk is also cut at this many characters, well under max_allowed_packet. */
const INSERT_CHUNK_CHARS = 4 * 1024 * 1024;
const REQUEST_COLUMNS = `(id, account_id, api_key_id, test_mode, channel, sender, subject, body, reply_to, source, callback_url,
  user_reference_id, request_hash, recipient_count, accepted_count, units_per_recipient, cost, currency, created_at,
  send_at, due_at, validity_period, valid_until, enqueued_at, priority, suppression_exempt,
  fallback_after_seconds, fallback_sender, fallback_body, send_window)`;
const REQUEST_ROW = `(${new Array(30).fill('?').join(', ')})`;

/** Appends the values of one send_requests row to `params`, in the order of REQUEST_COLUMNS. */
function pushRequestValues(params: unknown[], r: NewSendRequest): void {
  params.push(
    r.id,
    r.accountId,
    r.apiKeyId,
    r.testMode ? 1 : 0,
    r.channel,
    r.sender,
    r.subject,
    r.body,
    r.replyTo,
    r.source,
    r.callbackUrl,
    r.userReferenceId,
    r.requestHash,
    r.recipientCount,
    r.acceptedCount,
    r.unitsPerRecipient,
    r.cost,
    r.currency,
    sqlDateTime(r.createdAt),
    sqlDateTime(r.sendAt),
    sqlDateTime(r.dueAt),
    r.validityPeriod,
    sqlDateTime(r.validUntil),
    sqlDateTime(r.enqueuedAt),
    r.priority ?? 'normal',
    r.suppressionExempt ? 1 : 0,
    r.fallback?.afterSeconds ?? null,
    r.fallback?.sender ?? null,
    r.fallback?.body ?? null,
    r.sendWindow ? JSON.stringify(r.sendWindow) : null,
  );
}

/** One multi-row INSERT of send_requests rows (MessageStore.insertRequests runs it alone). */
export function requestsInsert(requests: NewSendRequest[]): Statement {
  const params: unknown[] = [];
  for (const r of requests) pushRequestValues(params, r);
  return {
    sql: `INSERT INTO send_requests ${REQUEST_COLUMNS} VALUES ${requests.map(() => REQUEST_ROW).join(',')}`,
    params,
  };
}

/**
 * The multi-row INSERTs of messages rows (MessageStore.insertMessages runs them), one per chunk
 * of INSERT_CHUNK rows or INSERT_CHUNK_CHARS characters of text, each built when it is asked
 * for (a large request's rows are not all turned into parameters in one task).
 */
export function* messagesInserts(groups: MessageGroup[]): Generator<Statement> {
  let params: unknown[] = [];
  let count = 0;
  let chars = 0;
  const chunk = (): Statement => {
    const s = {
      sql: `INSERT INTO messages ${COLUMNS} VALUES ${new Array(count).fill(ROW).join(',')}`,
      params,
    };
    params = [];
    count = 0;
    chars = 0;
    return s;
  };
  for (const { common, rows } of groups) {
    const createdAt = sqlDateTime(common.createdAt);
    for (const r of rows) {
      params.push(
        r.id,
        r.uuid,
        common.sendRequestId,
        common.accountId,
        common.channel,
        r.recipient,
        r.status,
        r.reason,
        r.units,
        r.cost,
        r.body ?? null,
        r.subject ?? null,
        createdAt,
        createdAt,
        r.sendAt ? sqlDateTime(r.sendAt) : null,
        r.fallbackDueAt ? sqlDateTime(r.fallbackDueAt) : null,
        r.fallbackOf ?? null,
        r.smppCredentialId ?? null,
        r.smppRegisteredDelivery ?? null,
      );
      chars += (r.body?.length ?? 0) + (r.subject?.length ?? 0);
      if (++count === INSERT_CHUNK || chars > INSERT_CHUNK_CHARS) yield chunk();
    }
  }
  if (count > 0) yield chunk();
}
