import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  debitStatements,
  InsufficientBalance,
  LedgerStore,
  type Charge,
} from '../../src/modules/balance/ledger.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { nextId } from '../factories/message.factory.js';
import { ledgerEntries, ledgerMismatches } from '../support/account-probes.js';
import { balanceOf } from '../support/probes.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The statements that move money: conditional debits, credits, charge and refund rows. */

let ctx: ServiceContext;
let store: LedgerStore;
let payer: Tenant;

const charge = (accountId: string, amount: string, over: Partial<Charge> = {}): Charge => ({
  accountId,
  channel: 'sms',
  amount,
  sendRequestId: nextId(),
  ...over,
});
const debit = (charges: Charge[]) => ctx.ds.transaction((em) => store.debit(em, debitStatements(charges)!));

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES);
  store = ctx.get(LedgerStore);
  payer = await createTenant(ctx, { balances: { sms: '10', email: '1' } });
});

afterAll(() => ctx?.close());

describe('LedgerStore', () => {
  it('debits each balance once by its total and writes one charge row per request', async () => {
    const a = payer.account.id;
    const charges = [charge(a, '1.5'), charge(a, '0.5'), charge(a, '0.25', { channel: 'email' })];
    await debit(charges);
    expect(await balanceOf(ctx, a, 'sms')).toBe('8.000000');
    expect(await balanceOf(ctx, a, 'email')).toBe('0.750000');
    const rows = await ledgerEntries(ctx, { accountId: a }, 'charge');
    expect(rows.map((r) => [r.channel, r.amount, r.send_request_id])).toEqual([
      ['sms', '-1.500000', charges[0].sendRequestId],
      ['sms', '-0.500000', charges[1].sendRequestId],
      ['email', '-0.250000', charges[2].sendRequestId],
    ]);
    expect(await ledgerMismatches(ctx, [a])).toEqual([]);
  });

  it('has nothing to debit when every charge is free', () => {
    expect(debitStatements([charge('1', '0'), charge('1', '0.000000')])).toBeNull();
  });

  it('refuses a debit a balance cannot pay with what it holds, and the transaction leaves no trace', async () => {
    const poor = await createTenant(ctx, { balances: { sms: '2', email: '5' } });
    const a = poor.account.id;
    const err = await debit([charge(a, '1', { channel: 'email' }), charge(a, '2.5')]).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(InsufficientBalance);
    expect(err).toMatchObject({ needed: '2.500000', available: '2.000000' });
    expect([await balanceOf(ctx, a, 'sms'), await balanceOf(ctx, a, 'email')]).toEqual([
      '2.000000',
      '5.000000',
    ]);
    expect(await ledgerEntries(ctx, { accountId: a }, 'charge')).toEqual([]);
  });

  it('never overdraws however many debits race: 5 of 15 pay a balance of 5', async () => {
    const racer = await createTenant(ctx, { balances: { sms: '5' } });
    const a = racer.account.id;
    const results = await Promise.allSettled(Array.from({ length: 15 }, () => debit([charge(a, '1')])));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    expect(await balanceOf(ctx, a)).toBe('0.000000');
    expect(await ledgerMismatches(ctx, [a])).toEqual([]);
  });

  it('refunds a message once: the ledger keeps one refund per message and says which are refunded', async () => {
    const a = payer.account.id;
    const sendRequestId = nextId();
    const [m1, m2] = [nextId(), nextId()];
    const refunds = [m1, m2].map((id) => ({
      id,
      accountId: a,
      channel: 'sms' as const,
      cost: '0.4',
      sendRequestId,
    }));
    await ctx.ds.transaction((em) => store.recordRefunds(em, refunds));
    const again = await ctx.ds
      .transaction((em) => store.recordRefunds(em, [refunds[0]]))
      .catch((e: { errno?: number }) => e.errno);
    expect(again).toBe(1062);
    const done = await ctx.ds.transaction((em) => store.refundedAmong(em, [m1, m2, nextId()]));
    expect(done).toEqual(new Set([m1, m2]));
    expect(await store.refundedForRequest(sendRequestId)).toBe('0.800000');
    expect(await store.refundedForRequest(nextId())).toBe('0.000000');
  });

  it('credits a balance and records a row of the kind given', async () => {
    const t = await createTenant(ctx, { balances: {} });
    const a = t.account.id;
    await ctx.ds.transaction(async (em) => {
      await store.credit(em, a, 'chat', '3');
      await store.record(em, {
        accountId: a,
        channel: 'chat',
        kind: 'topup',
        amount: '3',
        sendRequestId: null,
        messageId: null,
        note: 'by hand',
      });
    });
    expect(await balanceOf(ctx, a, 'chat')).toBe('3.000000');
    expect((await ledgerEntries(ctx, { accountId: a })).map((r) => [r.kind, r.amount])).toEqual([
      ['topup', '3.000000'],
    ]);
  });
});
