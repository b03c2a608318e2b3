import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransferNotCovered, TransferStore } from '../../src/modules/balance/transfer.store.js';
import { createSubaccount, createTenant, TENANT_MODULES } from '../factories/account.factory.js';
import { balanceOf, ledgerSum } from '../support/probes.js';
import { ledgerEntries, ledgerMismatches } from '../support/account-probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** A transfer between a parent and its sub-account: both balances, the transfer row and two ledger rows. */

let ctx: ServiceContext;
let store: TransferStore;

const family = async (parentSms: string) => {
  const parent = await createTenant(ctx, { balances: { sms: parentSms } });
  const sub = await createSubaccount(ctx, parent);
  return { parent, sub, p: parent.account.id, s: sub.account.id };
};
const transfersOf = (subaccountId: string) =>
  ctx.ds.query(
    'SELECT parent_id, subaccount_id, channel, amount FROM transfers WHERE subaccount_id = ? ORDER BY id',
    [subaccountId],
  ) as Promise<Array<Record<string, unknown>>>;

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(TransferStore);
});

afterAll(() => ctx?.close());

describe('TransferStore', () => {
  it('moves credit down and back up, with a signed transfer row and one ledger row on each side', async () => {
    const { p, s } = await family('10');
    const down = await store.transfer(p, s, 'sms', '4');
    expect(down).toMatchObject({ parentBalance: '6.000000', subaccountBalance: '4.000000' });
    const up = await store.transfer(p, s, 'sms', '-1.5');
    expect(up).toMatchObject({ parentBalance: '7.500000', subaccountBalance: '2.500000' });
    expect((await transfersOf(s)).map((t) => t.amount)).toEqual(['4.000000', '-1.500000']);
    const legs = await ledgerEntries(ctx, { transferId: up.transferId });
    expect(legs.map((l) => [l.account_id, l.kind, l.amount])).toEqual([
      [s, 'transfer', '-1.500000'],
      [p, 'transfer', '1.500000'],
    ]);
    expect(await ledgerMismatches(ctx, [p, s])).toEqual([]);
  });

  it('refuses a transfer the paying side cannot cover, saying whose balance and how much, and moves nothing', async () => {
    const { p, s } = await family('3');
    const down = await store.transfer(p, s, 'sms', '3.000001').catch((e: unknown) => e);
    expect(down).toBeInstanceOf(TransferNotCovered);
    expect(down).toMatchObject({ payer: 'parent', available: '3.000000', needed: '3.000001' });
    const up = await store.transfer(p, s, 'sms', '-1').catch((e: unknown) => e);
    expect(up).toMatchObject({ payer: 'subaccount', available: '0.000000', needed: '1.000000' });
    expect([await balanceOf(ctx, p), await balanceOf(ctx, s)]).toEqual(['3.000000', '0.000000']);
    expect(await transfersOf(s)).toEqual([]);
    expect(await ledgerEntries(ctx, { accountId: s })).toEqual([]);
  });

  it('lets exactly as many racing transfers through as the parent can pay, never below zero', async () => {
    const { p, s } = await family('5');
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, () => store.transfer(p, s, 'sms', '1')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(TransferNotCovered);
    expect([await balanceOf(ctx, p), await balanceOf(ctx, s)]).toEqual(['0.000000', '5.000000']);
    expect(await ledgerSum(ctx, s)).toBe('5.000000');
  });

  it('runs opposite transfers at once without a deadlock: the balance rows are taken in account order', async () => {
    const { p, s } = await family('20');
    await store.transfer(p, s, 'sms', '10');
    const moves = Array.from({ length: 16 }, (_, i) => store.transfer(p, s, 'sms', i % 2 ? '-0.5' : '0.5'));
    await expect(Promise.all(moves)).resolves.toHaveLength(16);
    expect([await balanceOf(ctx, p), await balanceOf(ctx, s)]).toEqual(['10.000000', '10.000000']);
    expect(await ledgerMismatches(ctx, [p, s])).toEqual([]);
  });
});
