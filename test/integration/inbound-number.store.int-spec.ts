import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InboundNumberStore, NumberTaken } from '../../src/modules/inbound/inbound-number.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** inbound_numbers: which account a number, or a keyword on a shared number, belongs to. */

let ctx: ServiceContext;
let store: InboundNumberStore;
let a: Tenant;
let b: Tenant;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [InboundNumberStore]);
  store = ctx.get(InboundNumberStore);
  [a, b] = [await createTenant(ctx), await createTenant(ctx)];
  await store.add(a.account.id, '260970000100', '');
  await store.add(a.account.id, '260970000200', 'PIZZA');
  await store.add(b.account.id, '260970000200', 'TAXI');
});

afterAll(() => ctx?.close());

describe('InboundNumberStore', () => {
  it('gives a number, or a keyword of it, to one account only', async () => {
    await expect(store.add(b.account.id, '260970000100', '')).rejects.toBeInstanceOf(NumberTaken);
    await expect(store.add(b.account.id, '260970000200', 'PIZZA')).rejects.toBeInstanceOf(NumberTaken);
  });

  it('answers every assignment of a shared number', async () => {
    const routes = (await store.routes('260970000200')).map((r) => [String(r.account_id), r.keyword]).sort();
    expect(routes).toEqual(
      [
        [a.account.id, 'PIZZA'],
        [b.account.id, 'TAXI'],
      ].sort(),
    );
    expect(await store.routes('260970009999')).toEqual([]);
  });

  it("lists assignments by number and keyword with the owner's username, of every account or one", async () => {
    const mine = await store.list(a.account.id);
    expect(mine.map((r) => [r.number, r.keyword, r.username])).toEqual([
      ['260970000100', '', a.username],
      ['260970000200', 'PIZZA', a.username],
    ]);
    const all = (await store.list()).map((r) => `${r.number}/${r.keyword}`);
    expect(all).toEqual(['260970000100/', '260970000200/PIZZA', '260970000200/TAXI']);
  });

  it("removes an assignment, and not another account's when scoped to one", async () => {
    expect(await store.remove('260970000200', 'TAXI', a.account.id)).toBe(0);
    expect(await store.remove('260970000200', 'TAXI', b.account.id)).toBe(1);
    expect(await store.remove('260970000200', 'TAXI')).toBe(0);
    await store.add(b.account.id, '260970000200', 'TAXI');
    expect(await store.remove('260970000200', 'TAXI')).toBe(1);
  });
});
