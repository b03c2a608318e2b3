import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstIdOf } from '../../src/database/partitions/day-partitions.js';
import { MessageHistoryStore } from '../../src/modules/messages/message-history.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Reads of message_events and messages in id order (what the recovery sweep derives events from), on real MySQL. */

let ctx: ServiceContext;
let store: MessageHistoryStore;
let tenant: Tenant;
let other: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule]);
  store = ctx.get(MessageHistoryStore);
  tenant = await createTenant(ctx, { test: true });
  other = await createTenant(ctx);
});
afterAll(() => ctx?.close());

describe('MessageHistoryStore', () => {
  it("reads the changes of the named accounts' messages after an id and up to another, in id order, as a state change carries them", async () => {
    const before = await store.lastId('message_events');
    const mine = await storeSend(ctx, ownerOf(tenant, 'test'), {
      messages: ['260971000101', '260971000102'],
      request: { userReferenceId: 'ref-history', callbackUrl: 'https://hooks.acme.example/cb' },
    });
    const theirs = await storeSend(ctx, ownerOf(other), { messages: ['260971000103'] });
    const at = new Date('2026-12-06T21:03:00.123Z');
    await moveTo(ctx, mine.ids, 'SENT', { at });
    await moveTo(ctx, theirs.ids, 'SENT', { at });
    await moveTo(ctx, [mine.ids[0]], 'DELIVERED', { at, reason: 'DELIVRD' });
    const last = await store.lastId('message_events');
    expect(BigInt(last) - BigInt(before)).toBe(4n);

    const changes = await store.changesOf([tenant.account.id], before, last);
    expect(changes.map((c) => [c.message.id, c.status])).toEqual([
      [mine.ids[0], 'SENT'],
      [mine.ids[1], 'SENT'],
      [mine.ids[0], 'DELIVERED'],
    ]);
    expect(changes[2]).toMatchObject({
      reason: 'DELIVRD',
      at,
      message: {
        id: mine.ids[0],
        uuid: mine.messages[0].uuid,
        account_id: tenant.account.id,
        channel: 'sms',
        recipient: '260971000101',
        send_request_id: mine.request.id,
        callback_url: 'https://hooks.acme.example/cb',
        user_reference_id: 'ref-history',
        test_mode: true,
      },
    });
    // Both ends: nothing at or before `afterId`, nothing past `uptoId`.
    const ids = changes.map((c) => c.eventId);
    expect(await store.changesOf([tenant.account.id], ids[0], ids[1])).toHaveLength(1);
    expect(await store.changesOf([other.account.id], before, last)).toHaveLength(1);
    expect(await store.changesOf([], before, last)).toEqual([]);
  });

  it('ends a batch at its n-th event, or at the upper bound when fewer are left', async () => {
    const before = await store.lastId('message_events');
    const send = await storeSend(ctx, ownerOf(other), {
      messages: ['260971000111', '260971000112', '260971000113'],
    });
    await moveTo(ctx, send.ids, 'SENT');
    const last = await store.lastId('message_events');
    const second = await store.batchEnd('message_events', before, last, 2);
    expect(await store.changesOf([other.account.id], before, second)).toHaveLength(2);
    expect(await store.batchEnd('message_events', second, last, 2)).toBe(last);
    const far = (BigInt(last) + 1000n).toString();
    expect(await store.batchEnd('message_events', last, far, 2)).toBe(far);
  });

  it("reads the named accounts' messages after an id and up to another, in id order, as their send answered them", async () => {
    const before = await store.lastId('messages');
    const later = new Date(Date.now() + 3600_000);
    const now = await storeSend(ctx, ownerOf(tenant, 'test'), {
      messages: ['260971000121', { recipient: '260971000122', status: 'REJECTED', reason: 'SUPPRESSED' }],
      request: { userReferenceId: 'ref-sends' },
    });
    const scheduled = await storeSend(ctx, ownerOf(tenant, 'test'), {
      messages: [{ recipient: '260971000123', status: 'SCHEDULED' }],
      request: { sendAt: later },
    });
    // A message rejected after it was accepted was still ACKNOWLEDGED in its send's answer.
    await moveTo(ctx, [now.ids[0]], 'REJECTED', { reason: 'PROVIDER' });
    const theirs = await storeSend(ctx, ownerOf(other), { messages: ['260971000124'] });
    const last = await store.lastId('messages');
    expect(BigInt(last) >= BigInt(theirs.ids[0])).toBe(true);

    const sends = await store.sendsOf([tenant.account.id], before, last);
    expect(sends.map((m) => [m.messageId, m.status, m.reason])).toEqual([
      [now.ids[0], 'ACKNOWLEDGED', null],
      [now.ids[1], 'REJECTED', 'SUPPRESSED'],
      [scheduled.ids[0], 'SCHEDULED', null],
    ]);
    expect(sends[0]).toEqual({
      messageId: now.ids[0],
      uuid: now.messages[0].uuid,
      accountId: tenant.account.id,
      channel: 'sms',
      recipient: '260971000121',
      status: 'ACKNOWLEDGED',
      reason: null,
      sendRequestId: now.request.id,
      userReferenceId: 'ref-sends',
      test: true,
      createdAt: now.request.createdAt,
    });
    expect(await store.sendsOf([tenant.account.id], now.ids[0], now.ids[1])).toHaveLength(1);
    expect(await store.sendsOf([other.account.id], before, last)).toHaveLength(1);
    expect(await store.sendsOf([], before, last)).toEqual([]);
    const second = await store.batchEnd('messages', before, last, 2);
    expect(second).toBe(now.ids[1]);
  });

  it('tells where a catch-up goes when the rows past its mark start before a time, and nothing when they do not', async () => {
    const DAY = 86_400_000;
    const since = new Date(Date.now() - 7 * DAY);
    // messages: the time is in the id.
    const old = await storeSend(ctx, ownerOf(other), {
      messages: ['260971000131'],
      request: { createdAt: new Date(Date.now() - 8 * DAY) },
    });
    const before = (BigInt(old.ids[0]) - 1n).toString();
    expect(await store.skipTo('messages', before, since)).toBe(
      String(BigInt(firstIdOf(since.getTime())) - 1n),
    );
    expect(await store.skipTo('messages', old.ids[0], since)).toBeNull(); // none older past it
    expect(await store.skipTo('messages', before, new Date(Date.now() - 9 * DAY))).toBeNull();

    // message_events: by occurred_at, or its message's time when later (a receipt's provider time).
    const mark = await store.lastId('message_events');
    const eightDaysAgo = new Date(Date.now() - 8 * DAY);
    await moveTo(ctx, old.ids, 'SENT', { at: eightDaysAgo });
    const oldEvents = await store.lastId('message_events');
    const recent = await storeSend(ctx, ownerOf(other), { messages: ['260971000132', '260971000133'] });
    await moveTo(ctx, recent.ids, 'SENT');
    // A late receipt of a recent message, dated by its provider before `since`: not old.
    await moveTo(ctx, [recent.ids[0]], 'DELIVERED', { at: eightDaysAgo });
    expect(await store.skipTo('message_events', mark, since)).toBe(oldEvents);
    expect(await store.skipTo('message_events', oldEvents, since)).toBeNull();
    expect(await store.skipTo('message_events', await store.lastId('message_events'), since)).toBeNull();
  });
});
