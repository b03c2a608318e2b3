import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SmppCredentialStore } from '../../src/modules/smpp-server/credentials/smpp-credential.store.js';
import { inboundPdu, type OutboxPdu } from '../../src/modules/smpp-server/receipts/receipt-pdu.js';
import { SmppReceiptStore } from '../../src/modules/smpp-server/receipts/smpp-receipt.store.js';
import { createTenant, TENANT_MODULES, type Tenant } from '../factories/account.factory.js';
import { nextId } from '../factories/message.factory.js';
import { startServices, type ServiceContext } from '../support/service-context.js';

/** Every statement on smpp_receipts (the deliver_sm owed to customers' binds), on real MySQL. */

let ctx: ServiceContext;
let store: SmppReceiptStore;
/** Each test's rows are of credential ids of its own, so claims of one never meet another's. */
let nextCredential = 10_000;

const receipt = (messageId: string): OutboxPdu => ({
  kind: 'receipt',
  source: '260971000001',
  destination: 'ACME',
  messageId,
  stat: 'DELIVRD',
  state: 2,
  text: 'hello',
});

/** Adds `n` receipts for `credentialId`; answers their row ids, oldest first. */
async function addReceipts(credentialId: number, n: number): Promise<string[]> {
  const messageIds = Array.from({ length: n }, () => nextId());
  await store.add(messageIds.map((messageId) => ({ credentialId, messageId, pdu: receipt(messageId) })));
  const rows = (await ctx.ds.query('SELECT id FROM smpp_receipts WHERE message_id IN (?) ORDER BY id', [
    messageIds,
  ])) as Array<{ id: string | number }>;
  return rows.map((r) => String(r.id));
}

const rowsOf = async (credentialId: number) =>
  (await ctx.ds.query(
    `SELECT id, message_id, attempts, claimed_by, claimed_until, next_attempt_at, pdu
       FROM smpp_receipts WHERE credential_id = ? ORDER BY id`,
    [credentialId],
  )) as Array<{
    id: string | number;
    message_id: string | number | null;
    attempts: number;
    claimed_by: string | null;
    claimed_until: Date | null;
    next_attempt_at: Date;
    pdu: string;
  }>;

/** Moves a column of these rows `ms` into the past (a lease or a wait that has run out). */
const age = (column: 'claimed_until' | 'next_attempt_at' | 'created_at', ids: string[], ms: number) =>
  ctx.ds.query(`UPDATE smpp_receipts SET ${column} = ${column} - INTERVAL ? MICROSECOND WHERE id IN (?)`, [
    ms * 1000,
    ids,
  ]);

const claim = (credentialIds: number[], limit = 100, leaseMs = 60_000) =>
  store.claim(credentialIds, randomUUID(), leaseMs, limit);

const credentialOf = (owner: Tenant, mode: 'live' | 'test') =>
  ctx.get(SmppCredentialStore).insert({
    accountId: owner.account.id,
    apiKeyId: mode === 'live' ? owner.apiKey.id : owner.test!.apiKey.id,
    systemId: `esme${randomBytes(4).toString('hex')}`,
    passwordHash: 'hash',
    mode,
    allowedIps: null,
    maxBinds: 4,
    tps: 100,
  });

beforeAll(async () => {
  ctx = await startServices(TENANT_MODULES, [SmppReceiptStore, SmppCredentialStore]);
  store = ctx.get(SmppReceiptStore);
});

afterAll(() => ctx?.close());

describe('SmppReceiptStore', () => {
  it('adds a batch in one statement and hands each row to a claim with its pdu, one attempt made', async () => {
    const c = nextCredential++;
    const ids = await addReceipts(c, 3);
    expect(ids).toHaveLength(3);
    await store.add([]);
    const rows = await rowsOf(c);
    const claimed = await claim([c]);
    expect(claimed.map((r) => [r.id, r.credentialId, r.attempts])).toEqual(ids.map((id) => [id, c, 1]));
    expect(claimed.map((r) => r.pdu)).toEqual(rows.map((r) => JSON.parse(r.pdu) as OutboxPdu));
    expect(claimed[0].pdu).toEqual(receipt(String(rows[0].message_id)));
  });

  it('claims only rows of the credentials asked for, oldest first, up to the limit', async () => {
    const [a, b, c] = [nextCredential++, nextCredential++, nextCredential++];
    const aIds = await addReceipts(a, 3);
    const bIds = await addReceipts(b, 2);
    await addReceipts(c, 2);
    expect(await claim([])).toEqual([]);
    const first = await claim([a, b], 2);
    expect(first.map((r) => r.id)).toEqual(aIds.slice(0, 2));
    const rest = await claim([a, b]);
    expect(rest.map((r) => r.id)).toEqual([aIds[2], ...bIds]);
    expect(await claim([a, b])).toEqual([]);
    expect((await rowsOf(c)).every((r) => r.claimed_by === null && r.attempts === 0)).toBe(true);
  });

  it('leases a claimed row: no other claim gets it until the lease has run out, then the next does', async () => {
    const c = nextCredential++;
    const [id] = await addReceipts(c, 1);
    const first = await store.claim([c], randomUUID(), 60_000, 10);
    expect(first.map((r) => r.id)).toEqual([id]);
    const [leased] = await rowsOf(c);
    expect(leased.claimed_until!.getTime() - Date.now()).toBeGreaterThan(30_000);
    expect(await claim([c])).toEqual([]);
    await age('claimed_until', [id], 61_000);
    const second = await claim([c]);
    expect(second.map((r) => [r.id, r.attempts])).toEqual([[id, 2]]);
  });

  it('never gives one row to two claimers at once', async () => {
    const c = nextCredential++;
    const ids = await addReceipts(c, 40);
    const claimants = Array.from({ length: 8 }, () => randomUUID());
    const batches = await Promise.all(claimants.map((who) => store.claim([c], who, 60_000, 7)));
    const got = batches.flatMap((rows) => rows.map((r) => r.id));
    expect(new Set(got).size).toBe(got.length);
    expect(got.length).toBe(40);
    expect([...got].sort()).toEqual([...ids].sort());
    const rows = await rowsOf(c);
    for (const [i, who] of claimants.entries())
      expect(rows.filter((r) => r.claimed_by === who).map((r) => String(r.id))).toEqual(
        batches[i].map((r) => r.id),
      );
    expect(rows.every((r) => r.attempts === 1)).toBe(true);
  });

  it('retries a row only when it is due again, by any claimer, and at once with no delay', async () => {
    const c = nextCredential++;
    const [later, now] = await addReceipts(c, 2);
    await claim([c]);
    await store.retryLater([later], 60_000);
    await store.retryLater([now], 0);
    await store.retryLater([], 0);
    const rows = await rowsOf(c);
    expect(rows.map((r) => r.claimed_by)).toEqual([null, null]);
    expect(rows[0].next_attempt_at.getTime() - Date.now()).toBeGreaterThan(30_000);
    expect((await claim([c])).map((r) => [r.id, r.attempts])).toEqual([[now, 2]]);
    await age('next_attempt_at', [later], 61_000);
    expect((await claim([c])).map((r) => [r.id, r.attempts])).toEqual([[later, 2]]);
  });

  it('removes only the rows given', async () => {
    const c = nextCredential++;
    const [gone, kept] = await addReceipts(c, 2);
    await store.remove([gone]);
    await store.remove([]);
    expect((await rowsOf(c)).map((r) => String(r.id))).toEqual([kept]);
  });

  it('expires only rows kept longer than the hours given, oldest first up to the limit, and says how many', async () => {
    const c = nextCredential++;
    const [oldest, older, recent] = await addReceipts(c, 3);
    await age('created_at', [oldest], 5 * 3_600_000);
    await age('created_at', [older], 3 * 3_600_000);
    await age('created_at', [recent], 1 * 3_600_000);
    expect(await store.expire(2, 1)).toBe(1);
    expect((await rowsOf(c)).map((r) => String(r.id))).toEqual([older, recent]);
    expect(await store.expire(2)).toBe(1);
    expect((await rowsOf(c)).map((r) => String(r.id))).toEqual([recent]);
    expect(await store.expire(2)).toBe(0);
  });

  it('says how many rows wait and how old the oldest is', async () => {
    await ctx.ds.query('DELETE FROM smpp_receipts');
    expect(await store.waiting()).toEqual({ count: 0, oldestSeconds: 0 });
    const c = nextCredential++;
    const [old] = await addReceipts(c, 3);
    await age('created_at', [old], 90_000);
    const { count, oldestSeconds } = await store.waiting();
    expect(count).toBe(3);
    expect(oldestSeconds).toBeGreaterThanOrEqual(90);
    expect(oldestSeconds).toBeLessThan(3600);
  });

  it("writes an inbound SMS for each live credential of its account and mode, none revoked nor another account's", async () => {
    const [owner, other] = [await createTenant(ctx, { test: true }), await createTenant(ctx)];
    const [live1, live2, test, revoked, others] = [
      await credentialOf(owner, 'live'),
      await credentialOf(owner, 'live'),
      await credentialOf(owner, 'test'),
      await credentialOf(owner, 'live'),
      await credentialOf(other, 'live'),
    ];
    await ctx.get(SmppCredentialStore).update(revoked!.id, { revokedAt: new Date() });
    const liveSms = inboundPdu('260971000009', '1234', 'a reply');
    const testSms = inboundPdu('260971000009', '1234', 'a test reply');
    await ctx.ds.transaction((em) =>
      store.addInbound(em, [
        { accountId: owner.account.id, testMode: false, pdu: liveSms },
        { accountId: owner.account.id, testMode: true, pdu: testSms },
      ]),
    );
    const written = async (id: number) => (await rowsOf(id)).map((r) => [r.message_id, JSON.parse(r.pdu)]);
    expect(await written(live1!.id)).toEqual([[null, liveSms]]);
    expect(await written(live2!.id)).toEqual([[null, liveSms]]);
    expect(await written(test!.id)).toEqual([[null, testSms]]);
    expect(await written(revoked!.id)).toEqual([]);
    expect(await written(others!.id)).toEqual([]);
  });

  it('writes no inbound SMS when the transaction that stores it rolls back', async () => {
    const owner = await createTenant(ctx);
    const credential = await credentialOf(owner, 'live');
    await expect(
      ctx.ds.transaction(async (em) => {
        await store.addInbound(em, [
          { accountId: owner.account.id, testMode: false, pdu: inboundPdu('260971000009', '1234', 'x') },
        ]);
        throw new Error('the inbound message was not stored');
      }),
    ).rejects.toThrow('not stored');
    expect(await rowsOf(credential!.id)).toEqual([]);
  });
});
