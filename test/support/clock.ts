import type { Probed } from './message-probes.js';

/**
 * Moves stored times to "just passed", so a spec sees what the scanners do when a time comes
 * without waiting hours for it. Each helper moves only the times the scanner named reads.
 */

const PASSED = 'UTC_TIMESTAMP(3) - INTERVAL 1 SECOND';

/** A waiting request's windowed messages open now (their send_at), and so the request is due. */
export async function openWindowsNow(t: Probed, sendRequestId: string): Promise<void> {
  await t.ds.query(
    `UPDATE messages SET send_at = ${PASSED} WHERE send_request_id = ? AND status = 'SCHEDULED'`,
    [sendRequestId],
  );
  await t.ds.query(`UPDATE send_requests SET due_at = ${PASSED} WHERE id = ?`, [sendRequestId]);
}

/** A waiting request's validity ends now, and so it is due. */
export async function endValidityNow(t: Probed, sendRequestId: string): Promise<void> {
  await t.ds.query(`UPDATE send_requests SET valid_until = ${PASSED}, due_at = ${PASSED} WHERE id = ?`, [
    sendRequestId,
  ]);
}

/** A request being tried ends its validity now; its due time stays, so only a retry of its messages sees it. */
export async function endValidityInFlight(t: Probed, sendRequestId: string): Promise<void> {
  await t.ds.query(`UPDATE send_requests SET valid_until = ${PASSED} WHERE id = ?`, [sendRequestId]);
}

/** A waiting request came due an hour ago and its validity ended a minute ago, as when every worker was down. */
export async function overdueAndExpired(t: Probed, sendRequestId: string): Promise<void> {
  await t.ds.query(
    'UPDATE send_requests SET due_at = UTC_TIMESTAMP(3) - INTERVAL 1 HOUR, valid_until = UTC_TIMESTAMP(3) - INTERVAL 1 MINUTE WHERE id = ?',
    [sendRequestId],
  );
}

/** The given chat messages' fallback time comes now. */
export async function fallbackDueNow(t: Probed, messageIds: string[]): Promise<void> {
  await t.ds.query(`UPDATE messages SET fallback_due_at = ${PASSED} WHERE id IN (?)`, [messageIds]);
}

/** An account's idempotency keys are `hours` older: created and expiring that much earlier. */
export async function ageIdempotencyKeys(t: Probed, accountId: string, hours: number): Promise<void> {
  await t.ds.query(
    'UPDATE idempotency_keys SET created_at = created_at - INTERVAL ? HOUR, expires_at = expires_at - INTERVAL ? HOUR WHERE account_id = ?',
    [hours, hours, accountId],
  );
}

/** Callback events kept in the outbox `ms` ago. */
export async function ageOutboxEvents(t: Probed, eventIds: string[], ms: number): Promise<void> {
  await t.ds.query(
    `UPDATE \`${t.name}_notification\`.callback_outbox SET created_at = created_at - INTERVAL ? MICROSECOND WHERE event_id IN (?)`,
    [ms * 1000, eventIds],
  );
}

/** Delivery reports with these provider ids received `ms` ago. */
export async function ageDeliveryReports(t: Probed, providerIds: string[], ms: number): Promise<void> {
  await t.ds.query(
    `UPDATE \`${t.name}_notification\`.delivery_reports SET received_at = received_at - INTERVAL ? MICROSECOND WHERE provider_message_id IN (?)`,
    [ms * 1000, providerIds],
  );
}

/** A worker's connector state rows last reported `ms` ago. */
export async function ageConnectorState(t: Probed, worker: string, ms: number): Promise<void> {
  await t.ds.query(
    'UPDATE connector_state SET updated_at = updated_at - INTERVAL ? MICROSECOND WHERE worker = ?',
    [ms * 1000, worker],
  );
}

/** The lease of an idempotency key's holder ends now (its process seems gone). */
export async function endIdempotencyLease(t: Probed, claimId: string): Promise<void> {
  await t.ds.query(`UPDATE idempotency_keys SET locked_until = ${PASSED} WHERE id = ?`, [claimId]);
}

/** The unfinished sets of inbound parts from a sender began a day ago. */
export async function ageInboundParts(t: Probed, sender: string, ref: number): Promise<void> {
  await t.ds.query(
    'UPDATE inbound_part_groups SET first_at = first_at - INTERVAL 1 DAY WHERE sender = ? AND ref = ?',
    [sender, ref],
  );
}

/** A verification's code stops working now (its expires_at passed). */
export async function endVerificationNow(t: Probed, verificationId: string): Promise<void> {
  await t.ds.query(`UPDATE verifications SET expires_at = ${PASSED} WHERE id = ?`, [verificationId]);
}

/**
 * A webhook endpoint's failing clock started `hours` ago, as if it had failed every attempt
 * since: the next failed attempt finds it past WEBHOOK_DISABLE_AFTER_HOURS (or not).
 */
export async function webhookFailingFor(t: Probed, webhookId: string, hours: number): Promise<void> {
  await t.ds.query(
    'UPDATE webhook_endpoints SET failing_since = CURRENT_TIMESTAMP(3) - INTERVAL ? MINUTE WHERE uuid = ?',
    [Math.round(hours * 60), webhookId],
  );
}

/** Webhook delivery-log rows written `days` ago. */
export async function ageWebhookDeliveries(t: Probed, deliveryIds: string[], days: number): Promise<void> {
  await t.ds.query(
    `UPDATE \`${t.name}_notification\`.webhook_deliveries SET created_at = created_at - INTERVAL ? DAY WHERE delivery_id IN (?)`,
    [days, deliveryIds],
  );
}
