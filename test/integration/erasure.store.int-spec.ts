import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getDataSourceToken } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import { NOTIFICATION_DB } from '../../src/database/data-sources.js';
import { CallbackStore } from '../../src/modules/callbacks/callback.store.js';
import type { CallbackJob, WebhookEnvelope } from '../../src/modules/callbacks/callback-job.js';
import { outboxRecipient } from '../../src/modules/callbacks/outbox-recipient.js';
import { WebhookDeliveryStore } from '../../src/modules/callbacks/webhooks/webhook-delivery.store.js';
import { IdempotencyStore } from '../../src/modules/idempotency/idempotency.store.js';
import { InboundStore } from '../../src/modules/inbound/inbound.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { RequestLogStore } from '../../src/modules/request-logs/request-log.store.js';
import { ErasureStore } from '../../src/modules/retention/erasure.store.js';
import { VerificationStore, type NewVerification } from '../../src/modules/verify/verification.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend } from '../factories/message.factory.js';
import { requestLogs } from '../support/account-probes.js';
import { requestMessages, requestsById } from '../support/message-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The statements of a recipient's erasure, across the main, notification and log databases. */

let ctx: ServiceContext;
let store: ErasureStore;
let tenant: Tenant;
let stranger: Tenant;
const ERASED = 'erased';
let n = 0;
const envelope = (type: string, data: Record<string, unknown>, test = false): WebhookEnvelope => ({
  event_id: randomUUID(),
  type,
  occurred_at: new Date().toISOString(),
  data,
  test,
});
const number = () => `2609720000${String(++n).padStart(2, '0')}`;

beforeAll(async () => {
  ctx = await startServices(
    [...TENANT_MODULES, MessagesModule],
    [
      ErasureStore,
      CallbackStore,
      IdempotencyStore,
      InboundStore,
      RequestLogStore,
      VerificationStore,
      WebhookDeliveryStore,
    ],
  );
  store = ctx.get(ErasureStore);
  tenant = await createTenant(ctx, { test: true });
  stranger = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('ErasureStore: messages', () => {
  it("finds the recipient's final messages of one account and side, and counts those still under way", async () => {
    const to = number();
    const live = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: to, status: 'DELIVERED' }, { recipient: to, status: 'ACKNOWLEDGED' }, number()],
    });
    const test = await storeSend(ctx, ownerOf(tenant, 'test'), {
      messages: [{ recipient: to, status: 'FAILED' }],
    });
    await storeSend(ctx, ownerOf(stranger), { messages: [{ recipient: to, status: 'DELIVERED' }] });
    expect(await store.messagesTo({ accountId: tenant.account.id, testMode: false }, to)).toEqual({
      ids: [live.ids[0]],
      requestIds: [live.request.id],
      pending: 1,
      pendingIds: [live.ids[1]],
    });
    expect((await store.messagesTo({ accountId: tenant.account.id, testMode: true }, to)).ids).toEqual(
      test.ids,
    );
    expect((await store.messagesTo({ accountId: tenant.account.id }, to)).ids.sort()).toEqual(
      [live.ids[0], test.ids[0]].sort(),
    );
  });

  it("replaces the number and personal text, and empties a request's text only when every message of it is erased", async () => {
    const to = number();
    const alone = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: to, status: 'DELIVERED', body: 'Hi Ann' }],
      request: { body: 'Hi {{name}}', fallback: { afterSeconds: 60, sender: null, body: 'sms text' } },
    });
    const shared = await storeSend(ctx, ownerOf(tenant), {
      messages: [
        { recipient: to, status: 'DELIVERED' },
        { recipient: number(), status: 'DELIVERED' },
      ],
      request: { body: 'bulk text' },
    });
    const found = await store.messagesTo({ accountId: tenant.account.id }, to);
    expect(await store.erase(found.ids, found.requestIds, ERASED)).toEqual({ messages: 2, send_requests: 1 });
    expect(await requestMessages(ctx, alone.request.id, 'recipient', 'body')).toEqual([
      { recipient: ERASED, body: null },
    ]);
    const [a, s] = await requestsById(ctx, [alone.request.id, shared.request.id], 'body', 'fallback_body');
    expect(a).toEqual({ body: '', fallback_body: null });
    expect(s).toEqual({ body: 'bulk text', fallback_body: null });
    expect((await requestMessages(ctx, shared.request.id, 'recipient')).map((m) => m.recipient)).toEqual([
      ERASED,
      expect.stringMatching(/^2609/),
    ]);
  });

  it('leaves a message alone that is no longer final by the time of the write', async () => {
    const to = number();
    const { request, ids } = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: to, status: 'ACKNOWLEDGED' }],
    });
    expect(await store.erase(ids, [request.id], ERASED)).toEqual({ messages: 0, send_requests: 0 });
    expect((await requestMessages(ctx, request.id, 'recipient'))[0].recipient).toBe(to);
  });

  it('replaces the sender and text of the inbound messages the recipient sent to this side of the account', async () => {
    const from = number();
    const inbound = ctx.get(InboundStore);
    const row = (accountId: string, testMode: boolean) => ({
      uuid: randomUUID(),
      accountId,
      testMode,
      from,
      to: '260970000100',
      text: 'my secret',
      keyword: null,
      inReplyTo: null,
      source: 'smpp',
      replyText: 'auto reply',
      receivedAt: new Date(),
    });
    const rows = [
      row(tenant.account.id, false),
      row(tenant.account.id, true),
      row(stranger.account.id, false),
    ];
    await ctx.ds.transaction((em) => inbound.insert(em, rows));
    const ids = await store.eraseInbound({ accountId: tenant.account.id, testMode: false }, from, ERASED);
    const after = await inbound.byUuids(rows.map((r) => r.uuid));
    expect(ids).toEqual([String(after[0].id)]);
    expect(after.map((r) => [r.sender, r.text, r.reply_text])).toEqual([
      [ERASED, '', null],
      [from, 'my secret', 'auto reply'],
      [from, 'my secret', 'auto reply'],
    ]);
  });
});

describe('ErasureStore: verifications', () => {
  it("replaces the number and kept text of the recipient's closed verifications on one side, and counts those pending", async () => {
    const to = number();
    const verifications = ctx.get(VerificationStore);
    const live = { accountId: tenant.account.id, testMode: false };
    const test = { accountId: tenant.account.id, testMode: true };
    const theirs = { accountId: stranger.account.id, testMode: false };
    const now = new Date();
    const v = (recipient = to, masked = 'Your code is ******'): NewVerification => ({
      id: randomUUID(),
      channel: 'sms',
      recipient,
      country: 'ZM',
      codeHash: randomBytes(32),
      expiresAt: new Date(now.getTime() + 600_000),
      createdAt: now,
      message: { id: String(1000 + ++n), publicId: randomUUID(), maskedBody: masked },
    });
    const approved = v(to, 'Acme code ******');
    const [expired, canceled, pending, testSide, stranger_, otherNumber] = [
      v(),
      v(),
      v(),
      v(),
      v(),
      v(number()),
    ];
    for (const [o, row] of [
      [live, approved],
      [live, expired],
      [live, canceled],
      [live, pending],
      [test, testSide],
      [theirs, stranger_],
      [live, otherNumber],
    ] as const)
      await verifications.insert(o, row);
    const digest = (await verifications.find(live, approved.id))!.code_hash;
    expect((await verifications.check(live, approved.id, digest, 5, now))?.row.status).toBe('approved');
    for (const id of [expired.id, testSide.id, stranger_.id, otherNumber.id])
      expect(await verifications.expire(id, now)).toBe(true);
    expect((await verifications.cancel(live, canceled.id, now))?.row.status).toBe('canceled');
    await verifications.markMasked([canceled.id], now);

    expect(await store.eraseVerifications(live, to, ERASED)).toEqual({ verifications: 3, pending: 1 });
    const rows = async () =>
      new Map(
        (
          (await ctx.ds.query(
            'SELECT id, recipient, status, masked_body, masked_at FROM verifications WHERE id IN (?)',
            [[approved, expired, canceled, pending, testSide, stranger_, otherNumber].map((r) => r.id)],
          )) as Array<{
            id: string;
            recipient: string;
            status: string;
            masked_body: string | null;
            masked_at: Date | null;
          }>
        ).map((r) => [r.id, r]),
      );
    const after = await rows();
    for (const r of [approved, expired, canceled])
      expect(after.get(r.id), r.id).toMatchObject({
        recipient: ERASED,
        masked_body: null,
        masked_at: expect.any(Date),
      });
    // The masking's own time stays where it was set.
    expect(after.get(canceled.id)!.masked_at!.getTime()).toBe(now.getTime());
    expect(after.get(approved.id)!.status).toBe('approved');
    // A pending verification (a check still needs it), the test side, another account and
    // another number: untouched.
    for (const r of [pending, testSide, stranger_, otherNumber])
      expect(after.get(r.id), r.id).toMatchObject({
        recipient: r.recipient,
        masked_body: 'Your code is ******',
        masked_at: null,
      });

    // Both sides: the test side's now, and the pending one still counted.
    expect(await store.eraseVerifications({ accountId: tenant.account.id }, to, ERASED)).toEqual({
      verifications: 1,
      pending: 1,
    });
    expect((await rows()).get(testSide.id)!.recipient).toBe(ERASED);
  });
});

describe('ErasureStore: copies kept elsewhere', () => {
  it("rewrites the outbox's events of erased messages and inbound messages of the account, and no other", async () => {
    const to = number();
    const event = (
      accountId: string,
      messageRowId: string,
      payload: object,
      eventType?: 'inbound' | 'webhook',
    ): CallbackJob => ({
      eventId: randomUUID(),
      url: 'https://example.com/cb',
      accountId,
      messageRowId,
      ...(eventType ? { eventType } : {}),
      payload: payload as unknown as CallbackJob['payload'],
    });
    const jobs = [
      event(tenant.account.id, '101', { recipient: to, test: false }),
      event(tenant.account.id, '102', { from: to, text: 'stop', test: false }, 'inbound'),
      event(tenant.account.id, '103', { recipient: to, test: false }),
      event(stranger.account.id, '101', { recipient: to, test: false }),
      // Webhook copies: of a message erased (or archived) and of one still under way.
      event(tenant.account.id, '104', envelope('message.delivered', { recipient: to }), 'webhook'),
      event(tenant.account.id, '105', envelope('message.sent', { recipient: to }), 'webhook'),
      // A verification's outcome: found by its hash, as the others are.
      event(tenant.account.id, '106', envelope('verification.failed', { to, status: 'expired' }), 'webhook'),
    ];
    await ctx.get(CallbackStore).keep(jobs);
    const changed = await store.eraseOutbox(
      { accountId: tenant.account.id },
      to,
      { messages: new Set(['101']), inbound: new Set(['102']), pending: new Set(['105']) },
      ERASED,
    );
    expect(changed).toBe(4);
    const rows = (await ctx.ds.query(
      `SELECT event_id, job FROM \`${ctx.name}_notification\`.callback_outbox WHERE event_id IN (?)`,
      [jobs.map((j) => j.eventId)],
    )) as Array<{ event_id: string; job: string }>;
    const payloadOf = (j: CallbackJob) => JSON.parse(rows.find((r) => r.event_id === j.eventId)!.job).payload;
    expect(payloadOf(jobs[0]).recipient).toBe(ERASED);
    expect(payloadOf(jobs[1])).toMatchObject({ from: ERASED, text: '' });
    expect(payloadOf(jobs[2]).recipient).toBe(to);
    expect(payloadOf(jobs[3]).recipient).toBe(to);
    expect(payloadOf(jobs[4]).data.recipient).toBe(ERASED);
    expect(payloadOf(jobs[5]).data.recipient).toBe(to);
    expect(payloadOf(jobs[6]).data).toEqual({ to: ERASED, status: 'expired' });
  });

  it("rewrites the webhook delivery log's envelopes about the recipient, delivered or pending, of one account and side", async () => {
    const to = number();
    const deliveries = ctx.get(WebhookDeliveryStore);
    const notifications = ctx.get<DataSource>(getDataSourceToken(NOTIFICATION_DB));
    const [w1, w2] = [randomUUID(), randomUUID()];
    const row = (
      accountId: string,
      subjectId: string,
      e: WebhookEnvelope,
      webhookId = w1,
      pending = false,
    ) => ({
      deliveryId: randomUUID(),
      eventId: e.event_id,
      webhookId,
      accountId,
      type: e.type,
      envelope: JSON.stringify(e),
      pending,
      subjectId,
      recipient: outboxRecipient({ eventType: 'webhook', payload: e }),
    });
    const delivered = envelope('message.delivered', { recipient: to, status: 'DELIVERED' });
    const rows = [
      // One event, two endpoints: the first copy's attempt still owed, the second delivered.
      row(tenant.account.id, '201', delivered, w1, true),
      row(tenant.account.id, '201', delivered, w2),
      row(tenant.account.id, '202', envelope('inbound.received', { from: to, text: 'stop me' })),
      // A message still under way, the test side, another account, another recipient: untouched.
      row(tenant.account.id, '203', envelope('message.sent', { recipient: to })),
      row(tenant.account.id, '204', envelope('message.delivered', { recipient: to }, true)),
      row(stranger.account.id, '205', envelope('message.delivered', { recipient: to })),
      row(tenant.account.id, '206', envelope('message.delivered', { recipient: number() })),
      // Logged before the recipient hash: found by its text.
      row(tenant.account.id, '0', envelope('message.accepted', { recipient: to })),
      // A verification's outcome names the recipient as `to`; one of the test side stays.
      row(tenant.account.id, '0', envelope('verification.approved', { to, status: 'approved' })),
      row(tenant.account.id, '0', envelope('verification.failed', { to, status: 'expired' }, true)),
    ];
    await deliveries.insert(rows);
    await notifications.query('UPDATE webhook_deliveries SET recipient_hash = NULL WHERE delivery_id = ?', [
      rows[7]!.deliveryId,
    ]);
    const changed = await store.eraseWebhookDeliveries(
      { accountId: tenant.account.id, testMode: false },
      { recipient: to, replacement: ERASED, pending: new Set(['203']) },
    );
    expect(changed).toBe(5);
    const after = (await notifications.query(
      `SELECT delivery_id, envelope, first_pending, HEX(recipient_hash) AS hash FROM webhook_deliveries
        WHERE delivery_id IN (?)`,
      [rows.map((r) => r.deliveryId)],
    )) as Array<{ delivery_id: string; envelope: string; first_pending: number; hash: string }>;
    const of = (i: number) => after.find((a) => a.delivery_id === rows[i]!.deliveryId)!;
    const data = (i: number) => (JSON.parse(of(i).envelope) as WebhookEnvelope).data;
    const erasedHash = ctx.get(CallbackStore).recipientHash(ERASED).toString('hex').toUpperCase();
    for (const i of [0, 1, 7]) {
      expect(data(i), String(i)).toMatchObject({ recipient: ERASED });
      expect(of(i).hash).toBe(erasedHash);
    }
    expect(data(2)).toMatchObject({ from: ERASED, text: '' });
    expect(data(8)).toEqual({ to: ERASED, status: 'approved' });
    expect(of(8).hash).toBe(erasedHash);
    expect(data(9)).toEqual({ to, status: 'expired' });
    for (const i of [3, 4, 5]) expect(data(i), String(i)).toMatchObject({ recipient: to });
    // The copy still owed stays owed, and a replay reads the rewritten envelope.
    expect(Number(of(0).first_pending)).toBe(1);
    expect((await deliveries.get(w2, delivered.event_id))!.envelope).not.toContain(to);
  });

  it('rewrites the kept answers of idempotent requests, in JSON and in XML, of this account only', async () => {
    const to = number();
    const keys = ctx.get(IdempotencyStore);
    const keep = async (accountId: string, body: string) => {
      const r = await keys.claim({ accountId, testMode: false }, randomUUID(), randomBytes(32), 30);
      if (r.kind !== 'claimed') throw new Error(r.kind);
      await keys.complete(r.claim, { status: 200, contentType: 'application/json', body: Buffer.from(body) });
    };
    await keep(tenant.account.id, JSON.stringify({ messages: [{ mobile_number: to }] }));
    await keep(tenant.account.id, `<messages><recipient>${to}</recipient></messages>`);
    await keep(stranger.account.id, JSON.stringify({ mobile_number: to }));
    expect(await store.eraseKeptAnswers({ accountId: tenant.account.id }, to, ERASED)).toBe(2);
    const bodies = (await ctx.ds.query(
      'SELECT account_id, body FROM idempotency_keys ORDER BY id',
    )) as Array<{ account_id: string; body: Buffer }>;
    const text = bodies.map((b) => [String(b.account_id), b.body.toString()]);
    expect(text).toContainEqual([
      tenant.account.id,
      JSON.stringify({ messages: [{ mobile_number: ERASED }] }),
    ]);
    expect(text).toContainEqual([tenant.account.id, `<messages><recipient>${ERASED}</recipient></messages>`]);
    expect(text).toContainEqual([stranger.account.id, JSON.stringify({ mobile_number: to })]);
  });

  it("rewrites the path segments naming the recipient in the logs of the account's keys of one side", async () => {
    const to = number();
    const logs = ctx.get(RequestLogStore);
    const entry = (apiKeyId: string, path: string) => ({
      apiKeyId,
      accountId: tenant.account.id,
      method: 'DELETE',
      path,
      status: 204,
      ip: null,
      userAgent: null,
      durationMs: 1,
      apiReference: null,
      requestId: `req-${apiKeyId}-${path}`,
      createdAt: new Date(),
    });
    await logs.insert([
      entry(tenant.apiKey.id, `/api/v1/suppressions/sms/${to}`),
      entry(tenant.test!.apiKey.id, `/api/v1/suppressions/sms/${to}`),
      entry(stranger.apiKey.id, `/api/v1/suppressions/sms/${to}`),
    ]);
    const changed = await store.eraseRequestLogs(
      { accountId: tenant.account.id, testMode: false },
      to,
      (s) => s === to,
      ERASED,
    );
    expect(changed).toBe(1);
    expect((await requestLogs(ctx, { keyId: tenant.apiKey.id }, 'path')).map((r) => r.path)).toEqual([
      '/api/v1/suppressions/sms/erased',
    ]);
    expect((await requestLogs(ctx, { keyId: tenant.test!.apiKey.id }, 'path')).map((r) => r.path)).toEqual([
      `/api/v1/suppressions/sms/${to}`,
    ]);
    expect((await requestLogs(ctx, { keyId: stranger.apiKey.id }, 'path')).map((r) => r.path)).toEqual([
      `/api/v1/suppressions/sms/${to}`,
    ]);
  });
});
