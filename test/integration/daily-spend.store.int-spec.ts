import { Decimal } from 'decimal.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DailySpendStore, type SpendOwner } from '../../src/modules/balance/daily-spend.store.js';
import { TENANT_MODULES } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/**
 * The daily_spend rows themselves (test/integration/spend-limits.int-spec.ts races them through
 * SpendLimits): created once, locked in key order, added to and given back, never below zero.
 */

let ctx: ServiceContext;
let store: DailySpendStore;
let n = 0;
const DAY = '2030-03-04';
const owners = (): [SpendOwner, SpendOwner] => {
  const id = String(5000 + ++n);
  return [
    { scope: 'account', ownerId: id, day: DAY },
    { scope: 'key', ownerId: id, day: DAY },
  ];
};

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(DailySpendStore);
});

afterAll(() => ctx?.close());

describe('DailySpendStore', () => {
  it('creates missing rows at zero and leaves a row already there as it is', async () => {
    const [acc, key] = owners();
    await store.createRows([acc]);
    await ctx.ds.transaction((em) => store.addSpent(em, [{ ...acc, added: new Decimal('2.5') }]));
    await store.createRows([acc, key]);
    expect(await store.spent(acc)).toBe('2.500000');
    expect(await store.spent(key)).toBe('0.000000');
    expect(await store.spent({ ...acc, day: '2030-03-05' })).toBeUndefined();
  });

  it('locks and reads the rows in primary-key order with the day as text', async () => {
    const [acc, key] = owners();
    await store.createRows([key, acc]);
    const rows = await ctx.ds.transaction((em) => store.lock(em, [acc, key]));
    expect(rows.map((r) => [r.scope, String(r.owner_id), r.day, r.spent])).toEqual([
      ['account', acc.ownerId, DAY, '0.000000'],
      ['key', key.ownerId, DAY, '0.000000'],
    ]);
  });

  it('holds the locked rows against another transaction until the first ends', async () => {
    const [acc] = owners();
    await store.createRows([acc]);
    const during = await ctx.ds.transaction(async (em) => {
      await store.lock(em, [acc]);
      return ctx.ds
        .query(
          'SELECT spent FROM daily_spend WHERE scope = ? AND owner_id = ? AND day = ? FOR UPDATE NOWAIT',
          [acc.scope, acc.ownerId, acc.day],
        )
        .catch((e: { errno?: number }) => e.errno);
    });
    expect(during).toBe(1205);
  });

  it('adds to each row, and writes a row again that was cleared meanwhile', async () => {
    const [acc, key] = owners();
    await store.createRows([acc, key]);
    await ctx.ds.query('DELETE FROM daily_spend WHERE scope = ? AND owner_id = ?', ['key', key.ownerId]);
    const add = [
      { ...acc, added: new Decimal('1.25') },
      { ...key, added: new Decimal('1.25') },
    ];
    await ctx.ds.transaction((em) => store.addSpent(em, add));
    await ctx.ds.transaction((em) => store.addSpent(em, add));
    expect([await store.spent(acc), await store.spent(key)]).toEqual(['2.500000', '2.500000']);
  });

  it("gives back to the account's and the key's row of that day only, never below zero", async () => {
    const [acc, key] = owners();
    const otherDay = { ...acc, day: '2030-03-05' };
    await store.createRows([acc, key, otherDay]);
    await ctx.ds.transaction((em) =>
      store.addSpent(em, [
        { ...acc, added: new Decimal('3') },
        { ...otherDay, added: new Decimal('3') },
        { ...key, added: new Decimal('1') },
      ]),
    );
    await ctx.ds.transaction((em) =>
      store.giveBack(em, [
        { ...acc, amount: '2' },
        { ...key, amount: '2' },
      ]),
    );
    expect([await store.spent(acc), await store.spent(key), await store.spent(otherDay)]).toEqual([
      '1.000000',
      '0.000000',
      '3.000000',
    ]);
  });
});
