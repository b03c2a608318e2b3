import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountChannelStore } from '../../src/modules/balance/account-channel.store.js';
import { createSubaccount, createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The reads and price changes of account_channels, on real MySQL. */

let ctx: ServiceContext;
let store: AccountChannelStore;
let parent: Tenant;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(AccountChannelStore);
  parent = await createTenant(ctx, {
    balances: { sms: '10', email: '2' },
    prices: { sms: '0.25', email: '0.1', chat: '0.05' },
  });
});

afterAll(() => ctx?.close());

describe('AccountChannelStore', () => {
  it("reads an account's three channels in channel order with their balances and prices", async () => {
    const rows = await store.channels(parent.account.id);
    expect(rows.map((c) => [c.channel, c.balance, c.costPerUnit, c.priceInherited])).toEqual([
      ['sms', '10.000000', '0.250000', false],
      ['email', '2.000000', '0.100000', false],
      ['chat', '0.000000', '0.050000', false],
    ]);
  });

  it("gives a sub-account its parent's current price until it has one of its own, on that channel alone", async () => {
    const sub = await createSubaccount(ctx, parent);
    expect((await store.channel(sub.account.id, 'sms')).costPerUnit).toBe('0.250000');
    await store.setPrice(parent.account.id, 'sms', '0.3');
    const followed = await store.channel(sub.account.id, 'sms');
    expect(followed).toMatchObject({ costPerUnit: '0.300000', priceInherited: true });
    await store.setPrice(sub.account.id, 'sms', '0.4');
    await store.setPrice(parent.account.id, 'sms', '0.35');
    expect(await store.channel(sub.account.id, 'sms')).toMatchObject({
      costPerUnit: '0.400000',
      priceInherited: false,
    });
    expect((await store.channel(sub.account.id, 'email')).costPerUnit).toBe('0.100000');
    await store.setPrice(parent.account.id, 'sms', '0.25');
  });

  it('reads the channels of several accounts in one call, and of none without asking', async () => {
    const other = await createTenant(ctx);
    const rows = await store.channelsOf([parent.account.id, other.account.id]);
    expect(rows).toHaveLength(6);
    expect(new Set(rows.map((r) => r.accountId))).toEqual(new Set([parent.account.id, other.account.id]));
    expect(await store.channelsOf([])).toEqual([]);
  });

  it('throws for an account without the channel', async () => {
    await expect(store.channel('999999999', 'sms')).rejects.toThrow('has no sms channel');
  });
});
