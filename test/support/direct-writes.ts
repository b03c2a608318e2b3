import type { Probed } from './message-probes.js';

/**
 * Changes written straight to the tables, as another process would (an operator's SQL, an app
 * on another host): the app under test hears of them only when its caches go back to MySQL,
 * which is what the specs that use these check. Where the app's own door is the subject, use it.
 */

/** The account's status, set without telling any app. */
export async function setAccountStatusDirectly(
  t: Probed,
  accountId: string,
  status: 'active' | 'suspended',
): Promise<void> {
  await t.ds.query('UPDATE accounts SET status = ? WHERE id = ?', [status, accountId]);
}

/** The key expired a second ago, without telling any app. */
export async function expireKeyDirectly(t: Probed, keyId: string): Promise<void> {
  await t.ds.query('UPDATE api_keys SET expires_at = NOW(3) - INTERVAL 1 SECOND WHERE id = ?', [keyId]);
}

/** The key's stored hash replaced (a rotation by hand), without telling any app. */
export async function setKeyHashDirectly(t: Probed, keyId: string, hash: Buffer): Promise<void> {
  await t.ds.query('UPDATE api_keys SET key_hash = ? WHERE id = ?', [hash, keyId]);
}

/**
 * What a process that died after committing a send and before keeping its answer leaves of an
 * account's idempotency keys: the tie to the send, no answer, and its hold on the key run out.
 */
export async function dropKeptAnswers(t: Probed, accountId: string): Promise<void> {
  await t.ds.query(
    `UPDATE idempotency_keys SET status = NULL, content_type = NULL, body = NULL,
            locked_until = NOW(3) - INTERVAL 1 SECOND WHERE account_id = ?`,
    [accountId],
  );
}

/** The status of a request's message to a recipient set as is (no event, no callback), as a receipt leaves the row. */
export async function setMessageStatusDirectly(
  t: Probed,
  sendRequestId: string,
  recipient: string,
  status: string,
): Promise<void> {
  await t.ds.query('UPDATE messages SET status = ? WHERE send_request_id = ? AND recipient = ?', [
    status,
    sendRequestId,
    recipient,
  ]);
}

/** A request's callback URL replaced as stored, past the checks a send makes (an import, an edit by hand). */
export async function setCallbackUrlDirectly(t: Probed, sendRequestId: string, url: string): Promise<void> {
  await t.ds.query('UPDATE send_requests SET callback_url = ? WHERE id = ?', [url, sendRequestId]);
}

/** The key's stored rate limit, set without the checks of the app's own door (as rows made before a rule). */
export async function setKeyRateLimitDirectly(
  t: Probed,
  keyId: string,
  rate: { limit: number; windowSeconds: number },
): Promise<void> {
  await t.ds.query('UPDATE api_keys SET rate_limit = ?, rate_window_seconds = ? WHERE id = ?', [
    rate.limit,
    rate.windowSeconds,
    keyId,
  ]);
}

/** Kept callback events as a process of an older version left them: without a recipient hash. */
export async function dropOutboxHashesDirectly(t: Probed, eventIds: string[]): Promise<void> {
  await t.ds.query(
    `UPDATE \`${t.name}_notification\`.callback_outbox SET recipient_hash = NULL WHERE event_id IN (?)`,
    [eventIds],
  );
}

/** Points a webhook endpoint at a URL the API would refuse (as one stored before a rule changed). */
export async function setWebhookUrlDirectly(t: Probed, webhookId: string, url: string): Promise<void> {
  await t.ds.query('UPDATE webhook_endpoints SET url = ? WHERE uuid = ?', [url, webhookId]);
}
