import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PumpingStore } from '../../src/modules/fraud/pumping/pumping.store.js';
import { createTenant, TENANT_MODULES } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** pumping_settings: one row per account, defaults without one. */

let ctx: ServiceContext;
let store: PumpingStore;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [PumpingStore]);
  store = ctx.get(PumpingStore);
});

afterAll(() => ctx?.close());

describe('PumpingStore', () => {
  it('answers the defaults for an account without settings', async () => {
    const t = await createTenant(ctx);
    expect(await store.settings(t.account.id)).toEqual({ monitor: false, safeList: [] });
  });

  it('keeps one row per account, replaced by each save', async () => {
    const [a, b] = [await createTenant(ctx), await createTenant(ctx)];
    await store.save(a.account.id, { monitor: true, safeList: ['260971234567'] });
    await store.save(a.account.id, { monitor: false, safeList: ['260971234567', '260971234568'] });
    expect(await store.settings(a.account.id)).toEqual({
      monitor: false,
      safeList: ['260971234567', '260971234568'],
    });
    expect(await store.settings(b.account.id)).toEqual({ monitor: false, safeList: [] });
  });
});
