import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessageHistoryStore } from '../../src/modules/messages/message-history.store.js';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { moveTo, ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Reads of message_events in id order (what the recovery sweep derives events from), on real MySQL. */

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
    const before = await store.lastId();
    const mine = await storeSend(ctx, ownerOf(tenant, 'test'), {
      messages: ['260971000101', '260971000102'],
      request: { userReferenceId: 'ref-history', callbackUrl: 'https://hooks.acme.example/cb' },
    });
    const theirs = await storeSend(ctx, ownerOf(other), { messages: ['260971000103'] });
    const at = new Date('2026-12-06T21:03:00.123Z');
    await moveTo(ctx, mine.ids, 'SENT', { at });
    await moveTo(ctx, theirs.ids, 'SENT', { at });
    await moveTo(ctx, [mine.ids[0]], 'DELIVERED', { at, reason: 'DELIVRD' });
    const last = await store.lastId();
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
    const before = await store.lastId();
    const send = await storeSend(ctx, ownerOf(other), {
      messages: ['260971000111', '260971000112', '260971000113'],
    });
    await moveTo(ctx, send.ids, 'SENT');
    const last = await store.lastId();
    const second = await store.batchEnd(before, last, 2);
    expect(await store.changesOf([other.account.id], before, second)).toHaveLength(2);
    expect(await store.batchEnd(second, last, 2)).toBe(last);
    const far = (BigInt(last) + 1000n).toString();
    expect(await store.batchEnd(last, far, 2)).toBe(far);
  });
});
