import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MessagesModule } from '../../src/modules/messages/messages.module.js';
import { SubaccountStore } from '../../src/modules/subaccounts/subaccount.store.js';
import { LedgerStore } from '../../src/modules/balance/ledger.store.js';
import { createSubaccount, createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { ownerOf, storeSend } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The reads of the sub-account overview: a parent's sub-accounts page by page, and their spend. */

let ctx: ServiceContext;
let store: SubaccountStore;
let parent: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, MessagesModule], [SubaccountStore]);
  store = ctx.get(SubaccountStore);
  parent = await createTenant(ctx);
});

afterAll(() => ctx?.close());

describe('SubaccountStore', () => {
  it("pages through a parent's sub-accounts oldest first after a cursor, and no one else's", async () => {
    const subs = [];
    for (let i = 0; i < 3; i++) subs.push(await createSubaccount(ctx, parent));
    const stranger = await createTenant(ctx);
    await createSubaccount(ctx, stranger);
    const first = await store.page(parent.account.id, null, 2);
    expect(first.map((r) => r.username)).toEqual(subs.slice(0, 2).map((s) => s.username));
    expect(first[0]).toMatchObject({ id: subs[0].account.id, status: 'active', currency: 'ZMW' });
    const rest = await store.page(parent.account.id, first[1].id, 2);
    expect(rest.map((r) => r.username)).toEqual([subs[2].username]);
    expect(await store.page(parent.account.id, rest[0].id, 2)).toEqual([]);
  });

  it('sums the live messages charged since a date, not test ones, free ones, older ones or refunded ones', async () => {
    const sub = await createSubaccount(ctx, parent);
    const since = new Date(Date.now() - 60_000);
    const paid = await storeSend(ctx, ownerOf(sub), {
      messages: ['260971000001', '260971000002', { recipient: 'bad', status: 'REJECTED' }],
      unitCost: '0.5',
    });
    await storeSend(ctx, ownerOf(sub), { channel: 'email', messages: ['a@example.com'], unitCost: '0.1' });
    await storeSend(
      ctx,
      { ...ownerOf(sub), testMode: true },
      { messages: ['260971000003'], unitCost: '0.5' },
    );
    await storeSend(ctx, ownerOf(sub), {
      messages: ['260971000004'],
      request: { createdAt: new Date(since.getTime() - 60_000) },
    });
    await ctx.ds.transaction((em) =>
      ctx.get(LedgerStore).recordRefunds(em, [
        {
          id: paid.ids[1],
          accountId: sub.account.id,
          channel: 'sms',
          cost: '0.5',
          sendRequestId: paid.request.id,
        },
      ]),
    );
    const usage = await store.usageSince([sub.account.id, parent.account.id], since);
    expect(usage.map((u) => [u.account_id, u.channel, String(u.units), u.cost]).sort()).toEqual([
      [sub.account.id, 'email', '1', '0.100000'],
      [sub.account.id, 'sms', '1', '0.500000'],
    ]);
    expect(await store.usageSince([], since)).toEqual([]);
  });
});
