import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  VerificationStore,
  type NewVerification,
  type VerificationOwner,
} from '../../src/modules/verify/verification.store.js';
import { createTenant, TENANT_MODULES } from '../factories/account.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** The verifications table: one side (live or test) of one account per statement. */

let ctx: ServiceContext;
let store: VerificationStore;
let live: VerificationOwner;
let test: VerificationOwner;

const now = new Date();
const later = new Date(now.getTime() + 600_000);
const earlier = new Date(now.getTime() - 1000);
let n = 0;
const verification = (over: Partial<NewVerification> = {}): NewVerification => ({
  id: randomUUID(),
  channel: 'sms',
  recipient: `2609710${String(10000 + n++)}`,
  country: 'ZM',
  codeHash: Buffer.alloc(32, 7),
  expiresAt: later,
  createdAt: now,
  ...over,
});

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [VerificationStore]);
  store = ctx.get(VerificationStore);
  const t = await createTenant(ctx);
  live = { accountId: t.account.id, testMode: false };
  test = { accountId: t.account.id, testMode: true };
});

afterAll(() => ctx?.close());

describe('VerificationStore', () => {
  it('reads a verification only from its own side, with its digest as stored', async () => {
    const v = verification();
    await store.insert(live, v);
    const row = await store.find(live, v.id);
    expect(row).toMatchObject({
      id: v.id,
      status: 'pending',
      attempts: 0,
      recipient: v.recipient,
      message_id: null,
    });
    expect(row!.code_hash.equals(v.codeHash)).toBe(true);
    expect(await store.find(test, v.id)).toBeUndefined();
  });

  it('attaches the message and cancels the pending ones to the same recipient only', async () => {
    const old = verification();
    const other = verification();
    const testSide = verification({ recipient: old.recipient });
    const fresh = verification({ recipient: old.recipient });
    for (const [o, v] of [
      [live, old],
      [live, other],
      [test, testSide],
      [live, fresh],
    ] as const)
      await store.insert(o, v);
    const replaced = await store.attach(
      live,
      fresh.id,
      { id: '42', publicId: 'uuid-42', maskedBody: 'Code ******' },
      now,
    );
    expect(replaced.map((r) => [r.id, r.status])).toEqual([[old.id, 'canceled']]);
    expect((await store.find(live, old.id))!.status).toBe('canceled');
    expect((await store.find(live, other.id))!.status).toBe('pending');
    expect((await store.find(test, testSide.id))!.status).toBe('pending');
    expect(await store.find(live, fresh.id)).toMatchObject({
      message_id: '42',
      public_message_id: 'uuid-42',
    });
    expect(await store.unmasked(['42'])).toEqual([
      { id: fresh.id, message_id: '42', masked_body: 'Code ******' },
    ]);
    await store.markMasked([fresh.id], now);
    expect(await store.unmasked(['42'])).toEqual([]);
  });

  it('writes what the decision under the row lock returns, and closes once', async () => {
    const v = verification();
    await store.insert(live, v);
    const first = await store.change(
      live,
      v.id,
      (r) => ({ status: 'pending', attempts: r.attempts + 1 }),
      now,
    );
    expect(first!.after).toMatchObject({ status: 'pending', attempts: 1, closed_at: null });
    const second = await store.change(live, v.id, (r) => ({ status: 'approved', attempts: r.attempts }), now);
    expect(second!.before.status).toBe('pending');
    expect(second!.after.closed_at).toEqual(now);
    expect(await store.change(test, v.id, (r) => r, now)).toBeUndefined();
  });

  it('finds pending verifications past their end, and expires each once', async () => {
    const v = verification({ expiresAt: earlier });
    await store.insert(live, v);
    expect((await store.due(now, 1000)).map((r) => r.id)).toContain(v.id);
    expect(await store.expire(v.id, now)).toBe(true);
    expect(await store.expire(v.id, now)).toBe(false);
    expect((await store.due(now, 1000)).map((r) => r.id)).not.toContain(v.id);
  });

  it("counts a country's latest decided verifications, newest first, up to the sample", async () => {
    const side: VerificationOwner = { accountId: live.accountId, testMode: true };
    const decided = async (status: 'approved' | 'canceled') => {
      const v = verification({ country: 'KE' });
      await store.insert(side, v);
      await store.change(side, v.id, (r) => ({ status, attempts: r.attempts }), now);
    };
    await decided('approved');
    for (let i = 0; i < 3; i++) await decided('canceled');
    await store.insert(side, verification({ country: 'KE' })); // pending: not decided
    await store.insert(side, verification({ country: 'KE', expiresAt: earlier })); // past its end: decided
    expect(await store.conversion(side, 'KE', now, 100)).toEqual({ decided: 5, approved: 1 });
    expect(await store.conversion(side, 'KE', now, 4)).toEqual({ decided: 4, approved: 0 });
    expect(await store.conversion(side, 'UG', now, 100)).toEqual({ decided: 0, approved: 0 });
  });

  it('removes a start whose code never went out', async () => {
    const v = verification();
    await store.insert(live, v);
    await store.remove(v.id);
    expect(await store.find(live, v.id)).toBeUndefined();
  });
});
