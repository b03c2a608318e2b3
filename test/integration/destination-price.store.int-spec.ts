import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DestinationPriceStore } from '../../src/modules/balance/pricing/destination-price.store.js';
import { ConnectorAdminModule } from '../../src/modules/delivery/smpp/connector-admin.module.js';
import { createSubaccount, createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { setDestinationPrices } from '../factories/route.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on destination_prices, on real MySQL. */

let ctx: ServiceContext;
let store: DestinationPriceStore;
let parent: Tenant;

beforeAll(async () => {
  ctx = await startServices([...TENANT_MODULES, ConnectorAdminModule]);
  store = ctx.get(DestinationPriceStore);
  parent = await createTenant(ctx);
  await setDestinationPrices(ctx, parent, {
    sms: { '26097': '0.2', '26095': '0.3', '260': '0.5' },
    chat: { '26097': '0.01' },
  });
});

afterAll(() => ctx?.close());

describe('DestinationPriceStore', () => {
  it("lists an account's prices by channel and prefix, or one channel's", async () => {
    expect(
      (await store.prices(parent.account.id)).map((p) => [p.channel, p.prefix, p.cost_per_unit]),
    ).toEqual([
      ['sms', '260', '0.500000'],
      ['sms', '26095', '0.300000'],
      ['sms', '26097', '0.200000'],
      ['chat', '26097', '0.010000'],
    ]);
    expect((await store.prices(parent.account.id, 'chat')).map((p) => p.prefix)).toEqual(['26097']);
    expect(await store.prices(parent.account.id, 'email')).toEqual([]);
  });

  it('keeps one price per account, channel and prefix: setting it again replaces it', async () => {
    const other = await createTenant(ctx);
    await store.setPrice(other.account.id, 'sms', '26096', '0.7');
    await store.setPrice(other.account.id, 'sms', '26096', '0.65');
    expect(await store.prices(other.account.id)).toEqual([
      { channel: 'sms', prefix: '26096', cost_per_unit: '0.650000' },
    ]);
    expect(await store.prices(parent.account.id, 'sms')).toHaveLength(3);
  });

  it("gives a sub-account its own prices and its parent's on every prefix it has not priced", async () => {
    const sub = await createSubaccount(ctx, parent);
    await store.setPrice(sub.account.id, 'sms', '26097', '0.25');
    await store.setPrice(sub.account.id, 'sms', '26099', '0.9');
    const effective = (await store.effectivePrices(sub.account.id, 'sms'))
      .map((p) => [p.prefix, p.cost_per_unit])
      .sort();
    expect(effective).toEqual([
      ['260', '0.500000'],
      ['26095', '0.300000'],
      ['26097', '0.250000'],
      ['26099', '0.900000'],
    ]);
    // A top-level account has no parent's prices to add.
    expect(await store.effectivePrices(parent.account.id, 'chat')).toEqual([
      { prefix: '26097', cost_per_unit: '0.010000' },
    ]);
  });

  it('answers whether a price was there to delete', async () => {
    const other = await createTenant(ctx);
    await store.setPrice(other.account.id, 'email', '', '0.1');
    expect(await store.deletePrice(other.account.id, 'email', '')).toBe(true);
    expect(await store.deletePrice(other.account.id, 'email', '')).toBe(false);
    expect(await store.prices(other.account.id, 'email')).toEqual([]);
  });
});
