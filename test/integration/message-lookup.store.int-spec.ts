import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageLookupStore } from '../../src/modules/messages/message-lookup.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The reads of one message, one request's messages and a message's history, on real MySQL. */

let ctx: ServiceContext;
let store: MessageLookupStore;
let tenant: Tenant;
let stranger: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule]);
  store = ctx.get(MessageLookupStore);
  tenant = await createTenant(ctx, { test: true });
  stranger = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('MessageLookupStore', () => {
  it("finds an account's own message by uuid or id, on its own side only, never another account's", async () => {
    const { request, messages } = await storeSend(ctx, ownerOf(tenant), {
      messages: ['260971000060'],
      request: { userReferenceId: 'ref-view' },
    });
    const [m] = messages;
    const byUuid = await store.findOwned(tenant.account.id, { uuid: m.uuid });
    expect(byUuid).toMatchObject({
      uuid: m.uuid,
      channel: 'sms',
      recipient: '260971000060',
      status: 'ACKNOWLEDGED',
      currency: 'ZMW',
      user_reference_id: 'ref-view',
      attempts: 0,
      fallback: null,
      fallback_of: null,
    });
    expect(String(byUuid!.send_request_id)).toBe(request.id);
    expect(String((await store.findOwned(tenant.account.id, { id: m.id }))!.id)).toBe(m.id);
    expect(await store.findOwned(tenant.account.id, { id: m.id }, true)).toBeUndefined();
    expect(await store.findOwned(stranger.account.id, { uuid: m.uuid })).toBeUndefined();
    const test = await storeSend(ctx, ownerOf(tenant, 'test'));
    expect(await store.findOwned(tenant.account.id, { id: test.ids[0] })).toBeUndefined();
    expect((await store.findOwned(tenant.account.id, { id: test.ids[0] }, true))?.uuid).toBe(
      test.messages[0].uuid,
    );
  });

  it('shows a chat message with its fallback SMS and its state, and the SMS with the chat it stands in for', async () => {
    const chat = await storeSend(ctx, ownerOf(tenant), {
      channel: 'chat',
      request: { fallback: { afterSeconds: 60, sender: null, body: null } },
    });
    const sms = await storeSend(ctx, ownerOf(tenant), {
      messages: [{ recipient: '260971000001', fallbackOf: chat.ids[0] }],
    });
    expect((await store.findOwned(tenant.account.id, { id: chat.ids[0] }))?.fallback).toBe(
      `${sms.messages[0].uuid} ACKNOWLEDGED`,
    );
    expect((await store.findOwned(tenant.account.id, { id: sms.ids[0] }))?.fallback_of).toBe(
      chat.messages[0].uuid,
    );
  });

  it('tells who a message went to by its uuid alone, with its side', async () => {
    const test = await storeSend(ctx, ownerOf(tenant, 'test'), {
      channel: 'email',
      messages: ['a@example.com'],
    });
    expect(await store.findRecipientByUuid(test.messages[0].uuid)).toEqual({
      account_id: expect.anything(),
      channel: 'email',
      recipient: 'a@example.com',
      test_mode: 1,
    });
    expect(await store.findRecipientByUuid('00000000-0000-7000-8000-000000000000')).toBeUndefined();
  });

  it('answers the latest priced message to a recipient since a time, on one channel and side', async () => {
    const to = '260971000099';
    const hourAgo = new Date(Date.now() - 3_600_000);
    await storeSend(ctx, ownerOf(tenant), {
      messages: [to],
      request: { createdAt: new Date(Date.now() - 7_200_000) },
    });
    await storeSend(ctx, ownerOf(tenant), {
      messages: [to],
      request: { createdAt: new Date(Date.now() - 600_000) },
    });
    const newer = await storeSend(ctx, ownerOf(tenant), { messages: [to] });
    await storeSend(ctx, ownerOf(tenant), { messages: [{ recipient: to, status: 'REJECTED' }] });
    await storeSend(ctx, ownerOf(tenant), { channel: 'chat', messages: [to] });
    const test = await storeSend(ctx, ownerOf(tenant, 'test'), { messages: [to] });
    expect(await store.latestAcceptedTo(tenant.account.id, 'sms', to, hourAgo)).toEqual({
      id: expect.anything(),
      uuid: newer.messages[0].uuid,
    });
    expect((await store.latestAcceptedTo(tenant.account.id, 'sms', to, hourAgo, true))?.uuid).toBe(
      test.messages[0].uuid,
    );
    expect(
      await store.latestAcceptedTo(tenant.account.id, 'sms', to, new Date(Date.now() + 60_000)),
    ).toBeUndefined();
    expect(await store.latestAcceptedTo(stranger.account.id, 'sms', to, hourAgo)).toBeUndefined();
  });

  it("gives a message's state changes oldest first", async () => {
    const { ids } = await storeSend(ctx, ownerOf(tenant));
    await moveTo(ctx, ids, 'SENT', { at: new Date(Date.now() - 1000) });
    await moveTo(ctx, ids, 'UNDELIVERED', { reason: 'ABSENT_SUBSCRIBER' });
    expect((await store.history(ids[0])).map((e) => [e.status, e.reason])).toEqual([
      ['SENT', null],
      ['UNDELIVERED', 'ABSENT_SUBSCRIBER'],
    ]);
  });

  it('pages a request in id order with its total, the request owned only by its account and side', async () => {
    const recipients = Array.from({ length: 5 }, (_, i) => `26097100007${i}`);
    const { request, ids } = await storeSend(ctx, ownerOf(tenant), { messages: recipients });
    expect(await store.ownsRequest(tenant.account.id, request.id)).toBe(true);
    expect(await store.ownsRequest(tenant.account.id, request.id, true)).toBe(false);
    expect(await store.ownsRequest(stranger.account.id, request.id)).toBe(false);
    const second = await store.page(request.id, 2, 2);
    expect(second.total).toBe(5);
    expect(second.rows.map((r) => String(r.id))).toEqual(ids.slice(2, 4));
  });
});
