import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  pendingTo,
  VerificationStore,
  type NewVerification,
  type VerificationOutcome,
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

  it('stores a verification with its message, and keeps only the newest pending one to a recipient', async () => {
    const old = verification();
    const older = verification({ recipient: old.recipient });
    const other = verification();
    const testSide = verification({ recipient: old.recipient });
    const fresh = verification({
      recipient: old.recipient,
      message: { id: '42', publicId: 'uuid-42', maskedBody: 'Code ******' },
    });
    for (const [o, v] of [
      [live, older],
      [live, old],
      [live, other],
      [test, testSide],
      [live, fresh],
    ] as const)
      await store.insert(o, v);
    const replaced = await store.keepNewest(live, old.recipient, now);
    expect(replaced.map((r) => [r.id, r.status])).toEqual([
      [old.id, 'canceled'],
      [older.id, 'canceled'],
    ]);
    expect((await store.find(live, old.id))!.status).toBe('canceled');
    expect((await store.find(live, fresh.id))!.status).toBe('pending');
    expect((await store.find(live, other.id))!.status).toBe('pending');
    expect((await store.find(test, testSide.id))!.status).toBe('pending');
    expect(await store.keepNewest(live, old.recipient, now)).toEqual([]);
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

  it('closes all but the newest of the pending ones read beforehand (with a send COMMIT)', async () => {
    const old = verification();
    const fresh = verification({ recipient: old.recipient });
    await store.insert(live, old);
    await store.insert(live, fresh);
    const read = pendingTo(live, old.recipient);
    const pending = (await ctx.ds.query(read.sql, read.params)) as VerificationOutcome[];
    expect(pending.map((v) => v.id)).toEqual([fresh.id, old.id]);
    const replaced = await store.keepNewest(live, old.recipient, now, pending);
    expect(replaced.map((r) => [r.id, r.status])).toEqual([[old.id, 'canceled']]);
    expect((await store.find(live, fresh.id))!.status).toBe('pending');
    // Rows read before another closed them: none is told closed twice.
    expect(await store.keepNewest(live, old.recipient, now, pending)).toEqual([]);
  });

  it('checks a code in one statement: counts wrong ones, closes at the last attempt, approves the right one', async () => {
    const wrong = Buffer.alloc(32, 8);
    const v = verification();
    await store.insert(live, v);
    expect(await store.check(live, v.id, wrong, 3, now)).toMatchObject({
      moved: true,
      row: { status: 'pending', attempts: 1, closed_at: null },
    });
    expect(await store.check(live, v.id, v.codeHash, 3, now)).toMatchObject({
      moved: true,
      row: { status: 'approved', attempts: 1, closed_at: now },
    });
    // Closed: left as it is, and said so.
    expect(await store.check(live, v.id, v.codeHash, 3, now)).toMatchObject({
      moved: false,
      row: { status: 'approved', attempts: 1 },
    });
    expect(await store.check(test, v.id, v.codeHash, 3, now)).toBeUndefined();

    const tried = verification();
    await store.insert(live, tried);
    for (const status of ['pending', 'pending', 'max_attempts_reached'])
      expect((await store.check(live, tried.id, wrong, 3, now))!.row.status).toBe(status);
    expect((await store.check(live, tried.id, tried.codeHash, 3, now))!).toMatchObject({
      moved: false,
      row: { status: 'max_attempts_reached', attempts: 3, closed_at: now },
    });

    const old = verification({ expiresAt: earlier });
    await store.insert(live, old);
    expect(await store.check(live, old.id, old.codeHash, 3, now)).toMatchObject({
      moved: true,
      row: { status: 'expired', attempts: 0, closed_at: now },
    });
  });

  it('counts each of many checks at once exactly once', async () => {
    const v = verification();
    await store.insert(live, v);
    const wrong = Buffer.alloc(32, 9);
    const results = await Promise.all(
      Array.from({ length: 8 }, () => store.check(live, v.id, wrong, 5, now)),
    );
    expect(results.filter((r) => r!.moved)).toHaveLength(5);
    // Each answers the attempt it took, not the row as another check left it after.
    expect(results.flatMap((r) => (r!.moved ? [r!.row.attempts] : [])).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(results.filter((r) => r!.moved && r!.row.status === 'max_attempts_reached')).toHaveLength(1);
    expect((await store.find(live, v.id))!.attempts).toBe(5);

    // The right code checked twice at once is approved by one of them; the other finds it closed.
    const right = verification();
    await store.insert(live, right);
    const both = await Promise.all([1, 2].map(() => store.check(live, right.id, right.codeHash, 5, now)));
    expect(both.map((r) => [r!.moved, r!.row.status]).sort()).toEqual([
      [false, 'approved'],
      [true, 'approved'],
    ]);
  });

  it('cancels a pending verification, expiring one past its end instead', async () => {
    const v = verification();
    const old = verification({ expiresAt: earlier });
    await store.insert(live, v);
    await store.insert(live, old);
    expect(await store.cancel(live, v.id, now)).toMatchObject({ moved: true, row: { status: 'canceled' } });
    expect(await store.cancel(live, v.id, now)).toMatchObject({ moved: false, row: { status: 'canceled' } });
    expect(await store.cancel(live, old.id, now)).toMatchObject({ moved: true, row: { status: 'expired' } });
  });

  it('expires a pending verification met past its end, and only then', async () => {
    const v = verification();
    const old = verification({ expiresAt: earlier });
    await store.insert(live, v);
    await store.insert(live, old);
    expect(await store.expireIfDue(live, v.id, now)).toMatchObject({
      moved: false,
      row: { status: 'pending' },
    });
    expect(await store.expireIfDue(live, old.id, now)).toMatchObject({
      moved: true,
      row: { status: 'expired', closed_at: now },
    });
    expect(await store.expireIfDue(test, old.id, now)).toBeUndefined();
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
      if (status === 'approved') await store.check(side, v.id, v.codeHash, 5, now);
      else await store.cancel(side, v.id, now);
    };
    await decided('approved');
    for (let i = 0; i < 3; i++) await decided('canceled');
    await store.insert(side, verification({ country: 'KE' })); // pending: not decided
    await store.insert(side, verification({ country: 'KE', expiresAt: earlier })); // past its end: decided
    expect(await store.conversion(side, 'KE', now, 100)).toEqual({ decided: 5, approved: 1 });
    expect(await store.conversion(side, 'KE', now, 4)).toEqual({ decided: 4, approved: 0 });
    expect(await store.conversion(side, 'UG', now, 100)).toEqual({ decided: 0, approved: 0 });
  });
});
